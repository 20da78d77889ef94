// Transitional: catalog-assets.ts now serves catalog items' media as well as their previews. This name
// stays only until src/server/http-server.ts imports `catalogAssetFile` from './catalog-assets.js'
// directly; then this file goes.
export { catalogAssetFile as catalogPreviewFile } from './catalog-assets.js';
