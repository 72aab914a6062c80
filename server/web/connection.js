// The page's one WebSocket to the server, speaking the public protocol
// (docs/protocol.md): hello first, numbered requests whose replies are matched by id,
// and pushed messages (race events, winnability) handed to listeners. A lost
// connection is opened again with the same guest token, and the listeners of
// "welcome" pick up where they were (resume a race, fetch the game's view).

export const TOKEN_KEY = "solitaire.token";

export class ServerError extends Error {
  constructor(reply) {
    super(reply.message || reply.code);
    this.code = reply.code;
    this.details = reply.details || {};
    this.reply = reply;
  }
}

export class Connection {
  constructor(url, storage, locale) {
    this.url = url;
    this.storage = storage;
    this.locale = locale;
    this.nextId = 0;
    this.pending = new Map();
    this.listeners = new Map();
    this.socket = null;
    this.ready = null;
    this.player = null;
    this.clockOffset = 0; // server time minus page time, in ms
    this.retry = 0;
    this.closing = false;
    this.online = false; // between a welcome and the loss of its socket
  }

  /** Server time now, in ms since the epoch, from the offset measured at welcome. */
  now() {
    return Date.now() + this.clockOffset;
  }

  on(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(listener);
    return () => this.listeners.get(type).delete(listener);
  }

  emit(type, message) {
    for (const listener of this.listeners.get(type) || []) listener(message);
  }

  /** Open the socket and say hello; resolves with the welcome. */
  open() {
    this.ready = new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url);
      this.socket = socket;
      socket.addEventListener("open", () => {
        this.hello().then(resolve, reject);
      });
      socket.addEventListener("message", (frame) => this.receive(frame.data));
      socket.addEventListener("close", () => this.lost(socket, reject));
    });
    return this.ready;
  }

  async hello() {
    const token = this.storage.getItem(TOKEN_KEY);
    const fields = { protocol: 1, locale: this.locale };
    let welcome;
    try {
      welcome = await this.send("hello", token ? { ...fields, token } : fields, true);
    } catch (error) {
      if (!(error instanceof ServerError) || error.code !== "bad_token") throw error;
      // A token of another server (or database): start again as a new guest.
      this.storage.removeItem(TOKEN_KEY);
      welcome = await this.send("hello", fields, true);
    }
    if (welcome.token) this.storage.setItem(TOKEN_KEY, welcome.token);
    this.player = welcome.player;
    this.clockOffset = welcome.server_time - Date.now();
    this.retry = 0;
    this.online = true;
    this.emit("status", "online");
    this.emit("welcome", welcome);
    return welcome;
  }

  lost(socket, reject) {
    if (socket !== this.socket) return;
    this.online = false;
    for (const { fail } of this.pending.values()) fail(new Error("connection lost"));
    this.pending.clear();
    reject(new Error("connection lost"));
    if (this.closing) return;
    this.emit("status", "offline");
    const delay = Math.min(500 * 2 ** this.retry, 8000);
    this.retry += 1;
    setTimeout(() => this.open().catch(() => {}), delay);
  }

  /** Close for good (the language switch opens a new one). */
  close() {
    this.closing = true;
    if (this.socket) this.socket.close();
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    const waiting = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (waiting && message.type !== "event") {
      this.pending.delete(message.id);
      if (message.type === "error") waiting.fail(new ServerError(message));
      else waiting.done(message);
      return;
    }
    this.emit(message.type, message);
  }

  send(type, fields = {}, beforeWelcome = false) {
    const id = ++this.nextId;
    const frame = encode({ type, id, ...fields });
    return new Promise((done, fail) => {
      const go = () => {
        this.pending.set(id, { done, fail });
        this.socket.send(frame);
      };
      if (beforeWelcome) go();
      else this.ready.then(go, fail);
    });
  }

  /** A request after hello; resolves with the reply, rejects with a ServerError. */
  request(type, fields = {}) {
    return this.send(type, fields);
  }
}

/** JSON text of a message; BigInt values (64-bit seeds) are written as plain numbers. */
export function encode(message) {
  const text = JSON.stringify(message, (_, value) =>
    typeof value === "bigint" ? `\u0000big:${value}` : value,
  );
  return text.replace(/"\\u0000big:(\d+)"/g, "$1");
}
