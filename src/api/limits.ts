// The endpoint limiters of spec 8.1: part of the API contract (the OpenAPI document states them, the server's
// rate limiter enforces them), so both read this one table.
import type { LimiterName } from './routes.js';

export interface LimiterSpec { limit: number; windowSec: number }

export const ENDPOINT_LIMITERS: Record<LimiterName, LimiterSpec> = {
  videoCreation: { limit: 500, windowSec: 60 },
  statusCheck: { limit: 500, windowSec: 60 },
  listRequests: { limit: 500, windowSec: 60 },
  standard: { limit: 1000, windowSec: 900 },
  posts: { limit: 500, windowSec: 60 },
};
