// Who a request or a post belongs to: an API account, or `local` for the CLI's own engine.
export interface Account { id: string; email: string }
