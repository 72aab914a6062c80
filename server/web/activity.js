// The page inside Discord, as an Activity (docs/discord.md, section 11). Discord opens
// it in an iframe at https://<application id>.discordsays.com/ with a query of its own
// (frame_id, instance_id, platform, guild_id, channel_id). Only then does the page load
// Discord's SDK (discord-sdk.js, bundled by `make activity-sdk`), so a page outside
// Discord never downloads it, and then:
// 1. the SDK's handshake with the Discord client (ready);
// 2. the sign-in: authorize (a code for the "identify" scope, no prompt when already
//    granted), POST /api/token {code, guest_token} (the server's exchange with Discord,
//    server/transport/sign_in.py), whose JSON carries the player's session token
//    (`token`) and Discord's access token (`access_token`, handed to authenticate); the
//    page then says hello with that token. When the server refuses it (no sign-in set
//    up, a code Discord does not take), the player plays on as a guest;
// 3. the instance's race (`activity_race`): everyone in the Activity is in one race.
// The page's own address changes keep Discord's query (app.js), since the SDK reads
// frame_id from it again after a reload.

const SDK = "/discord-sdk.js";
const READY_WAIT_MS = 10_000;
// Discord may ask the player to allow the sign-in the first time: time to read and answer.
const SIGN_IN_WAIT_MS = 60_000;

/** Discord's query when the page runs as an Activity, else null. */
export function activityQuery(search = location.search) {
  const query = new URLSearchParams(search);
  const frameId = query.get("frame_id");
  const instanceId = query.get("instance_id");
  if (!frameId || !instanceId) return null;
  return { frameId, instanceId, guildId: query.get("guild_id"), channelId: query.get("channel_id") };
}

/** The application's id: the first label of <application id>.discordsays.com, where
 * Discord serves every Activity. */
export function applicationId(hostname = location.hostname) {
  const match = /^(\d+)\.discordsays\.com$/.exec(hostname);
  return match ? match[1] : null;
}

export class Activity {
  constructor(query, storage, tokenKey) {
    this.query = query;
    this.storage = storage;
    this.tokenKey = tokenKey;
    this.sdk = null;
    this.signedIn = false;
  }

  /** The handshake and the sign-in, before the page says hello; never throws: a
   * failure, or Discord not answering in time, leaves the page a guest, and the text
   * returned says why ("" once signed in). The SDK's ready never comes when the frame
   * lost Discord as its referrer (a reload the page made itself: embedded-app-sdk
   * issue 41), hence the wait's end. */
  async start() {
    const clientId = applicationId();
    if (!clientId) return "not on discordsays.com";
    const late = (ms, why) => new Promise((done) => setTimeout(() => done(why), ms));
    try {
      const { DiscordSDK } = await import(SDK);
      this.sdk = new DiscordSDK(clientId, { disableConsoleLogOverride: true });
      const ready = await Promise.race([this.sdk.ready().then(() => ""), late(READY_WAIT_MS, "Discord did not answer")]);
      if (ready) return ready;
      return await Promise.race([this.signIn(clientId), late(SIGN_IN_WAIT_MS, "sign-in timed out")]);
    } catch (error) {
      return String(error?.message ?? error);
    }
  }

  async signIn(clientId) {
    const { code } = await this.sdk.commands.authorize({
      client_id: clientId,
      response_type: "code",
      state: "",
      prompt: "none",
      scope: ["identify"],
    });
    // A guest who played here before brings its finished games along (the server
    // ignores a token that is not a guest's).
    const guest = this.storage.getItem(this.tokenKey);
    const response = await fetch("/api/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(guest ? { code, guest_token: guest } : { code }),
    });
    if (!response.ok) return `sign-in refused (${response.status})`;
    const answer = await response.json();
    if (typeof answer.token !== "string") return "sign-in without a token";
    this.storage.setItem(this.tokenKey, answer.token);
    this.signedIn = true;
    // Discord's own sign-in of the SDK, for its commands that need one; the page needs
    // none of them, so it does not wait for it.
    if (typeof answer.access_token === "string") {
      this.sdk.commands.authenticate({ access_token: answer.access_token }).catch(() => {});
    }
    return "";
  }

  /** The race of this Activity's instance (found or created by the server), its id. */
  async race(connection, variant) {
    const fields = { instance_id: this.query.instanceId, variant };
    if (this.query.guildId) fields.guild_id = this.query.guildId;
    const reply = await connection.request("activity_race", fields);
    return reply.race.race;
  }
}
