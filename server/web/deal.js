// Deals from seeds, as engine/deal.py makes them (docs/deals.md): SplitMix64, a fair
// index by rejection, Fisher–Yates from the last position down, and deal codes. A
// deal number therefore means the same cards here as on the server; seeds are BigInt
// because they run to 2^64 − 1.

const MASK64 = (1n << 64n) - 1n;
const GOLDEN_GAMMA = 0x9e3779b97f4a7c15n;
const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export const SEED_LIMIT = 1n << 64n;

/** The SplitMix64 generator, 64-bit state (Steele, Lea, Flood 2014). */
export class SplitMix64 {
  constructor(seed) {
    this.state = BigInt(seed);
    if (this.state < 0n || this.state > MASK64) throw new RangeError(`seed out of range: ${seed}`);
  }

  next() {
    this.state = (this.state + GOLDEN_GAMMA) & MASK64;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  }

  /** A uniform integer in [0, bound): outputs at or above the largest multiple of
   * bound are thrown away so that no value is favoured. */
  below(bound) {
    const n = BigInt(bound);
    const limit = SEED_LIMIT - (SEED_LIMIT % n);
    for (;;) {
      const x = this.next();
      if (x < limit) return Number(x % n);
    }
  }
}

/** A shuffled copy of ``items``: for i from n-1 down to 1, swap i with below(i + 1). */
export function shuffled(items, seed) {
  const deck = [...items];
  const rng = new SplitMix64(seed);
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const j = rng.below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** The deal code of a seed: Crockford base 32, grouped by four. */
export function dealCode(seed) {
  let n = BigInt(seed);
  let text = "";
  do {
    text = CODE_ALPHABET[Number(n % 32n)] + text;
    n /= 32n;
  } while (n > 0n);
  const groups = [];
  for (let end = text.length; end > 0; end -= 4) groups.unshift(text.slice(Math.max(0, end - 4), end));
  return groups.join("-");
}

/** A seed from its digits or its deal code (case, dashes and O/I/L read leniently). */
export function seedOf(text) {
  if (/^\d+$/.test(text)) return BigInt(text);
  let seed = 0n;
  for (const ch of text.toUpperCase().replace(/[-\s]/g, "")) {
    const digit = CODE_ALPHABET.indexOf(ch.replace("O", "0").replace(/[IL]/, "1"));
    if (digit < 0) throw new Error(`not a deal code: ${text}`);
    seed = seed * 32n + BigInt(digit);
  }
  if (seed > MASK64) throw new Error(`not a deal code: ${text}`);
  return seed;
}

/** A fresh random seed from the page's cryptographic generator. */
export function randomSeed() {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return (BigInt(words[0]) << 32n) | BigInt(words[1]);
}
