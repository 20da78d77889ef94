// The OpenAPI schemas of connected accounts (issue 16), for openapi.ts to merge into components.schemas;
// their operations are entries of the route table (src/api/routes.ts).
import { PLATFORMS } from '../domain/posts-query.js';
import { dateTime, enumOf, nullable, obj, ref, str, type Schema } from './schema.js';

const platform: Schema = enumOf(PLATFORMS);

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
