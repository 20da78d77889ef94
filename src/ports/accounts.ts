// The accounts port: what `shorts serve` keeps about API accounts, their keys and their credit ledger.
// Storage only: the rules (validation, key format and hashing, the 401 cases, how often a key's last use
// is written) live once in src/service/accounts.ts, above every adapter. Today's adapter is
// src/adapters/sqlite/accounts.ts.
//
// Credits move only through this port's units of work: a charge and the write it pays for commit or roll
// back together (chargeAndCreate), and a refund happens at most once per request, whoever asks for it.

export interface AccountRecord {
  id: string;
  email: string;
  subscriptionActive: boolean;
  credits: number;
  hourlyLimit: number;
  dailyLimit: number;
  blurBackground: boolean;
  webhookSecret: string;
  createdAt: string;
}

export interface KeyInfo {
  keyId: string;
  prefix: string;
  accountId: string;
  email: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** A key as stored: never the key itself, only the hex SHA-256 of it and its display prefix. */
export interface StoredKey {
  keyId: string;
  accountId: string;
  keyHash: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** How `keys revoke` names a key: by the hash of the whole key, by its id, or by its display prefix. */
export type KeyMatch = { keyHash: string } | { keyId: string } | { prefix: string };

export interface AccountLimits { hourlyLimit: number; dailyLimit: number; subscriptionActive: boolean }

export interface AccountsPort {
  /**
   * Inserts a new account (email already normalized) and, when it starts with credits, their 'grant' in
   * the ledger, as one unit of work. 'email_taken' (nothing written) when an account has this email.
   */
  insertAccount(account: AccountRecord): Promise<AccountRecord | 'email_taken'>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** By normalized (lower-case, trimmed) email. */
  findAccountByEmail(email: string): Promise<AccountRecord | undefined>;
  /** undefined: no such account. */
  updateLimits(id: string, limits: AccountLimits): Promise<AccountRecord | undefined>;
  /** false: no such account. */
  setBlurPreference(id: string, blur: boolean): Promise<boolean>;
  /** Adds `credits` (> 0) and their 'grant' ledger entry together; undefined: no such account (nothing written). */
  grantCredits(id: string, credits: number, at: string): Promise<AccountRecord | undefined>;

  /** Stores a new key (its account exists). */
  insertKey(key: StoredKey): Promise<void>;
  /** Every key with its account's email, oldest first (creation order). */
  listKeys(): Promise<KeyInfo[]>;
  /** Keys matching `match`, with their account's email, oldest first; a prefix may match several. */
  findKeys(match: KeyMatch): Promise<KeyInfo[]>;
  /** The key whose SHA-256 is `keyHash` (hex), revoked or not: what authentication looks up. */
  keyByHash(keyHash: string): Promise<StoredKey | undefined>;
  /** Marks a key revoked at `at` unless it already is (the first revocation time stays); the key after. */
  revokeKey(keyId: string, at: string): Promise<KeyInfo | undefined>;
  /** Records that a key was used at `at`. */
  touchKey(keyId: string, at: string): Promise<void>;

  /**
   * Takes one credit of `accountId` for request `requestId` (a 'creation' ledger entry) and runs `create`,
   * the write that credit pays for, in the same unit of work: both happen or neither. Two callers racing
   * for an account's last credit cannot both succeed, from any number of processes. Throws ShortsError
   * 'insufficient_credits' (details creditsRequired/creditsAvailable) when none is left and
   * 'resource_not_found' for an unknown account; whatever `create` throws rolls the charge back and is
   * rethrown. `create` writes through the same database as the adapter (today: the SQLite request store
   * on the same connection, which writes before returning its promise); an adapter for a server database carries its transaction to
   * the request store (e.g. AsyncLocalStorage) and holds the account row locked (FOR UPDATE) meanwhile.
   */
  chargeAndCreate<T>(accountId: string, requestId: string, at: string, create: () => T | Promise<T>): Promise<T>;
  /**
   * Gives back the credit request `requestId` was charged: true once, false on every later call (from any
   * process) and for a request that was never charged.
   */
  refund(requestId: string, at: string): Promise<boolean>;
}
