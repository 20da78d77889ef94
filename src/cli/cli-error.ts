// Commands throw; the entry point is the only place that prints an error and picks the exit code.
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT.failure) {
    super(message);
    this.name = 'CliError';
  }
}
