// The OpenAPI part of connected accounts (issue 16), for openapi.ts to merge: its schemas into
// components.schemas and its paths into paths, built with openapi.ts's own `operation` (rate-limit headers,
// error bodies per status) so these operations read like every other one.
import type { ErrorCode } from '../errors.js';
import { PLATFORMS } from '../publish/types.js';

type Schema = Record<string, unknown>;

interface AccountsOperationDef {
  operationId: string; summary: string; description?: string; tag: string; limiter: 'standard';
  ok: { status: number; schema: string; description: string }; errors: readonly ErrorCode[]; parameters?: Schema[]; requestBody?: Schema;
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const dateTime: Schema = { type: 'string', format: 'date-time' };
const nullable = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
const platform: Schema = { type: 'string', enum: [...PLATFORMS] };
const obj = (properties: Record<string, Schema>, optional: readonly string[] = []): Schema => ({
  type: 'object', additionalProperties: false, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
});
const lifetime = (what: string): Schema => ({ type: 'integer', minimum: 1, maximum: 10 * 365 * 86_400, description: `Seconds ${what} has left` });
const token = (what: string): Schema => ({ type: 'string', minLength: 1, maxLength: 8192, description: what });

export function accountsOpenApiSchemas(): Record<string, Schema> {
  return {
    ConnectedAccount: {
      ...obj({
        id: { type: 'string', description: 'ca_ followed by 20 hex digits' },
        platform,
        handle: { type: 'string', description: 'The account\'s name on the platform, without @' },
        platformUserId: nullable({ type: 'string', description: 'The platform\'s id of the account (channel id, IG user id, open_id)' }),
        status: { type: 'string', enum: ['active', 'expired'], description: 'expired: the platform refused to refresh its token; its pending posts failed with auth_expired; connect it again' },
        expiresAt: nullable({ ...dateTime, description: 'When the current access token ends (it is refreshed 5 minutes before); null: the platform gave no lifetime' }),
        scopes: { type: 'array', items: str, description: 'The scopes granted, when the platform said' },
        createdAt: dateTime,
        updatedAt: { ...dateTime, description: 'Last change: a refresh, a reconnect, an expiry' },
      }),
      description: 'A platform account posts go out as (extension). Its tokens are stored encrypted and never returned.',
    },
    ConnectedAccountList: obj({ accounts: { type: 'array', items: ref('ConnectedAccount') } }),
    ConnectedAccountRemoved: obj({
      id: str, deleted: { type: 'boolean', const: true }, canceledPosts: { type: 'integer', minimum: 0, description: 'Its scheduled posts, now canceled' },
    }),
    AccountConsent: obj({
      platform,
      authorizationUrl: { type: 'string', format: 'uri', description: 'The platform\'s consent page: open it in a browser signed in to the account' },
      redirectUri: { type: 'string', format: 'uri', description: 'Where the platform sends the browser back: <SHORTS_PUBLIC_URL>/oauth/callback (register it with the OAuth app)' },
      expiresAt: { ...dateTime, description: 'The consent must be completed before this (10 minutes)' },
    }),
  };
}

export function accountsOpenApiPaths(operation: (d: AccountsOperationDef) => Schema, rootUrl: string): Record<string, Schema> {
  const idParam: Schema = { name: 'accountId', in: 'path', required: true, schema: str, description: 'The connected account\'s id (ca_…)' };
  const json = (schema: Schema): Schema => ({ required: true, content: { 'application/json': { schema } } });
  const html = (description: string): Schema => ({ description, content: { 'text/html': { schema: str } } });
  return {
    '/accounts': {
      get: operation({
        operationId: 'listConnectedAccounts', summary: 'Connected platform accounts of this API account (extension)', tag: 'accounts', limiter: 'standard',
        ok: { status: 200, schema: 'ConnectedAccountList', description: 'Every connected account, oldest first' }, errors: ['invalid_request'],
        parameters: [{ name: 'platform', in: 'query', required: false, schema: platform, description: 'Only accounts on this platform' }],
      }),
      post: operation({
        operationId: 'addConnectedAccount', summary: 'Add an account with tokens obtained elsewhere (extension)', tag: 'accounts', limiter: 'standard',
        description: 'The same platform and handle again replaces the tokens and makes the account active again (a reconnect). The tokens are stored '
          + 'encrypted with the server\'s SHORTS_SECRET_KEY and never returned.',
        ok: { status: 201, schema: 'ConnectedAccount', description: 'The account' }, errors: ['invalid_request'],
        requestBody: json(obj({
          platform,
          handle: { type: 'string', minLength: 1, maxLength: 101, description: 'The account\'s name on the platform (@ optional)' },
          accessToken: token('The access token'),
          refreshToken: token('The refresh token; without one the account stops working when the access token ends (photo_site renews its long-lived token itself)'),
          expiresIn: lifetime('the access token'),
          refreshExpiresIn: lifetime('the refresh token'),
          platformUserId: { type: 'string', minLength: 1, maxLength: 200, description: 'The platform\'s id of the account' },
          scopes: { type: 'array', items: str },
        }, ['refreshToken', 'expiresIn', 'refreshExpiresIn', 'platformUserId', 'scopes'])),
      }),
    },
    '/accounts/connect': {
      post: operation({
        operationId: 'connectAccount', summary: 'Start connecting an account through the platform\'s consent page (extension)', tag: 'accounts', limiter: 'standard',
        description: 'Answers the consent page to open. When the user agrees, the platform sends the browser to this server\'s /oauth/callback, '
          + 'which saves the account for this API account; it then appears in GET /accounts. 400 when the server has no OAuth app for the platform '
          + '(SHORTS_OAUTH_<PLATFORM>_CLIENT_ID and _SECRET).',
        ok: { status: 200, schema: 'AccountConsent', description: 'The consent page' }, errors: ['invalid_request'],
        requestBody: json(obj({ platform, handle: { type: 'string', minLength: 1, maxLength: 101, description: 'Save the account under this name instead of the platform\'s' } }, ['handle'])),
      }),
    },
    '/accounts/{accountId}': {
      get: operation({
        operationId: 'getConnectedAccount', summary: 'One connected account (extension)', tag: 'accounts', limiter: 'standard',
        ok: { status: 200, schema: 'ConnectedAccount', description: 'The account' }, errors: ['resource_not_found'], parameters: [idParam],
      }),
      delete: operation({
        operationId: 'removeConnectedAccount', summary: 'Remove a connected account; its scheduled posts are canceled (extension)', tag: 'accounts', limiter: 'standard',
        ok: { status: 200, schema: 'ConnectedAccountRemoved', description: 'Removed' }, errors: ['resource_not_found'], parameters: [idParam],
      }),
    },
    '/oauth/callback': {
      servers: [{ url: rootUrl }],
      get: {
        operationId: 'oauthCallback', summary: 'Where the platform\'s consent page sends the browser back (extension)', tags: ['accounts'], security: [],
        description: 'Opened by the user\'s browser, not by API clients: no API key; the signed `state` names the API account that started the consent. '
          + 'Exchanges the code for tokens and answers a page saying whether the account is connected.',
        parameters: [
          { name: 'state', in: 'query', required: true, schema: str, description: 'From POST /accounts/connect, signed by this server' },
          { name: 'code', in: 'query', required: false, schema: str, description: 'The authorization code' },
          { name: 'error', in: 'query', required: false, schema: str, description: 'The platform\'s refusal (access_denied…)' },
          { name: 'error_description', in: 'query', required: false, schema: str },
        ],
        responses: {
          200: html('Connected: the page names the account'),
          400: html('Not connected: the page says why (a refusal, an invalid or expired state, a failed code exchange, an account that cannot publish)'),
          431: { $ref: '#/components/responses/HeadersTooLarge' },
        },
      },
    },
  };
}
