// What the page uses of Discord's embedded app SDK, bundled with its dependencies into
// one ES module (server/web/discord-sdk.js) by `make activity-sdk`; the page imports
// it only inside Discord (server/web/activity.js).
export { DiscordSDK } from "@discord/embedded-app-sdk";
