// Sign in with Discord (docs/operations.md, "Sign in with Discord"). The server does the
// OAuth2 exchange: the page only starts it, posting its guest token so the guest's games
// come along, and keeps the session token it comes back with ("#signed_in=…"), which
// says hello from then on. A guest ranks nowhere unless the server lets guests rank
// (welcome's "unranked", docs/protocol.md, "Who ranks"), so the line under the header
// says so, and offers the sign-in where the server has it.

import { TOKEN_KEY } from "./connection.js";
import { language } from "./i18n.js";

const TEXTS = {
  en: {
    guest: "As a guest your results are not ranked.",
    signIn: "Sign in with Discord to rank",
    signInOnly: "Sign in with Discord",
    signedIn: "Signed in with Discord: {name}",
    signOut: "Sign out",
    denied: "Sign-in cancelled.",
    expired: "The sign-in took too long; try again.",
    failed: "Discord did not sign you in; try again.",
  },
  de: {
    guest: "Als Gast wirst du nicht gewertet.",
    signIn: "Für Wertung mit Discord anmelden",
    signInOnly: "Mit Discord anmelden",
    signedIn: "Mit Discord angemeldet: {name}",
    signOut: "Abmelden",
    denied: "Anmeldung abgebrochen.",
    expired: "Die Anmeldung hat zu lange gedauert; versuche es noch einmal.",
    failed: "Discord hat dich nicht angemeldet; versuche es noch einmal.",
  },
};

function say(key, params = {}) {
  const text = (TEXTS[language()] || TEXTS.en)[key];
  return text.replace(/\{(\w+)\}/g, (_, name) => params[name] ?? "");
}

/**
 * Before the connection opens: what a sign-in came back with in the address. A session
 * token is kept (hello sends it); the address loses the fragment but keeps its query,
 * which inside a Discord Activity carries the frame's ids. Returns the failure's reason
 * ("denied", "expired", "failed"), or null.
 */
export function takeSignInResult(storage) {
  const match = /^#(signed_in|sign_in_error)=([A-Za-z0-9._~-]+)$/.exec(location.hash);
  if (!match) return null;
  history.replaceState(null, "", location.pathname + location.search);
  if (match[1] === "signed_in") {
    storage.setItem(TOKEN_KEY, match[2]);
    return null;
  }
  return match[2];
}

/** The line that says who is playing: a guest (and how to rank), or the Discord name. */
export class AccountLine {
  constructor(connection, element, storage, failure) {
    this.element = element;
    this.storage = storage;
    this.failure = failure;
    this.welcome = null;
    element.style.cssText = "margin:0;padding:0.3rem 0.8rem;font-size:0.9rem;display:flex;flex-wrap:wrap;gap:0.3rem 0.8rem;align-items:center";
    connection.on("welcome", (welcome) => {
      this.welcome = welcome;
      this.render();
    });
  }

  render() {
    const welcome = this.welcome;
    const user = welcome?.player?.user || "";
    const offered = (welcome?.sign_in || []).includes("discord");
    const unranked = welcome?.unranked === "guest";
    this.element.hidden = !(user.startsWith("discord:") || offered || unranked);
    if (this.element.hidden) return;
    const text = document.createElement("span");
    const button = document.createElement("button");
    button.type = "button";
    button.style.cssText = "min-height:0;padding:0.2em 0.7em";
    if (user.startsWith("discord:")) {
      this.element.dataset.account = "discord";
      text.textContent = say("signedIn", { name: welcome.player.name });
      button.textContent = say("signOut");
      button.addEventListener("click", () => this.signOut());
    } else {
      // A guest: where guests do not rank, say so; where Discord is offered, offer it.
      this.element.dataset.account = "guest";
      text.textContent = unranked ? say("guest") : "";
      button.textContent = say(unranked ? "signIn" : "signInOnly");
      button.className = "primary";
      button.hidden = !offered;
      button.addEventListener("click", () => this.signIn());
    }
    this.element.replaceChildren(text, button);
    if (this.failure) {
      const failed = document.createElement("span");
      failed.setAttribute("role", "alert");
      const known = ["denied", "expired", "failed"].includes(this.failure);
      failed.textContent = say(known ? this.failure : "failed");
      this.element.append(failed);
    }
  }

  /** Off to Discord through the server, with this guest's token in the form's body. */
  signIn() {
    const form = document.createElement("form");
    form.method = "post";
    form.action = "/auth/discord/login";
    form.hidden = true;
    const guest = document.createElement("input");
    guest.type = "hidden";
    guest.name = "guest";
    guest.value = this.storage.getItem(TOKEN_KEY) || "";
    form.append(guest);
    document.body.append(form);
    form.submit();
  }

  /** Forget the session: the next hello makes a new guest. */
  signOut() {
    this.storage.removeItem(TOKEN_KEY);
    location.reload();
  }
}
