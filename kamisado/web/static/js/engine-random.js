/* The computer's levels in the page (engine-levels.js) draw the numbers the
   server's draw: Python's random.Random, as far as the levels use it: seeded with a string
   (version 2: the string's bytes and their SHA-512 as one integer), the
   Mersenne Twister MT19937, random(), randrange(n), choice, choices with
   weights.  The same seed gives Python's very numbers. */

const K512 = [
  "428a2f98d728ae22", "7137449123ef65cd", "b5c0fbcfec4d3b2f", "e9b5dba58189dbbc", "3956c25bf348b538",
  "59f111f1b605d019", "923f82a4af194f9b", "ab1c5ed5da6d8118", "d807aa98a3030242", "12835b0145706fbe",
  "243185be4ee4b28c", "550c7dc3d5ffb4e2", "72be5d74f27b896f", "80deb1fe3b1696b1", "9bdc06a725c71235",
  "c19bf174cf692694", "e49b69c19ef14ad2", "efbe4786384f25e3", "0fc19dc68b8cd5b5", "240ca1cc77ac9c65",
  "2de92c6f592b0275", "4a7484aa6ea6e483", "5cb0a9dcbd41fbd4", "76f988da831153b5", "983e5152ee66dfab",
  "a831c66d2db43210", "b00327c898fb213f", "bf597fc7beef0ee4", "c6e00bf33da88fc2", "d5a79147930aa725",
  "06ca6351e003826f", "142929670a0e6e70", "27b70a8546d22ffc", "2e1b21385c26c926", "4d2c6dfc5ac42aed",
  "53380d139d95b3df", "650a73548baf63de", "766a0abb3c77b2a8", "81c2c92e47edaee6", "92722c851482353b",
  "a2bfe8a14cf10364", "a81a664bbc423001", "c24b8b70d0f89791", "c76c51a30654be30", "d192e819d6ef5218",
  "d69906245565a910", "f40e35855771202a", "106aa07032bbd1b8", "19a4c116b8d2d0c8", "1e376c085141ab53",
  "2748774cdf8eeb99", "34b0bcb5e19b48a8", "391c0cb3c5c95a63", "4ed8aa4ae3418acb", "5b9cca4f7763e373",
  "682e6ff3d6b2b8a3", "748f82ee5defb2fc", "78a5636f43172f60", "84c87814a1f0ab72", "8cc702081a6439ec",
  "90befffa23631e28", "a4506cebde82bde9", "bef9a3f7b2c67915", "c67178f2e372532b", "ca273eceea26619c",
  "d186b8c721c0c207", "eada7dd6cde0eb1e", "f57d4f7fee6ed178", "06f067aa72176fba", "0a637dc5a2c898a6",
  "113f9804bef90dae", "1b710b35131c471b", "28db77f523047d84", "32caab7b40c72493", "3c9ebe0a15c9bebc",
  "431d67c49c100d4c", "4cc5d4becb3e42b6", "597f299cfc657e2a", "5fcb6fab3ad6faec", "6c44198c4a475817",
].map((x) => BigInt("0x" + x));
const H512 = ["6a09e667f3bcc908", "bb67ae8584caa73b", "3c6ef372fe94f82b", "a54ff53a5f1d36f1",
  "510e527fade682d1", "9b05688c2b3e6c1f", "1f83d9abfb41bd6b", "5be0cd19137e2179"].map((x) => BigInt("0x" + x));
const M64 = (1n << 64n) - 1n;

/** SHA-512 of bytes (short inputs: the seeds' strings). @param {Uint8Array} msg @returns {Uint8Array} */
export function sha512(msg) {
  const len = msg.length;
  const padded = new Uint8Array(Math.ceil((len + 17) / 128) * 128);
  padded.set(msg);
  padded[len] = 0x80;
  const bits = BigInt(len) * 8n;
  for (let i = 0; i < 16; i++) padded[padded.length - 1 - i] = Number((bits >> BigInt(8 * i)) & 0xffn);
  const h = [...H512];
  const rotr = (/** @type {bigint} */ x, /** @type {bigint} */ n) => ((x >> n) | (x << (64n - n))) & M64;
  for (let off = 0; off < padded.length; off += 128) {
    /** @type {bigint[]} */
    const w = [];
    for (let i = 0; i < 16; i++) {
      let x = 0n;
      for (let j = 0; j < 8; j++) x = (x << 8n) | BigInt(padded[off + 8 * i + j]);
      w.push(x);
    }
    for (let i = 16; i < 80; i++) {
      const s0 = rotr(w[i - 15], 1n) ^ rotr(w[i - 15], 8n) ^ (w[i - 15] >> 7n);
      const s1 = rotr(w[i - 2], 19n) ^ rotr(w[i - 2], 61n) ^ (w[i - 2] >> 6n);
      w.push((w[i - 16] + s0 + w[i - 7] + s1) & M64);
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 80; i++) {
      const S1 = rotr(e, 14n) ^ rotr(e, 18n) ^ rotr(e, 41n);
      const ch = (e & f) ^ (~e & M64 & g);
      const t1 = (hh + S1 + ch + K512[i] + w[i]) & M64;
      const S0 = rotr(a, 28n) ^ rotr(a, 34n) ^ rotr(a, 39n);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) & M64;
      hh = g; g = f; f = e; e = (d + t1) & M64; d = c; c = b; b = a; a = (t1 + t2) & M64;
    }
    [a, b, c, d, e, f, g, hh].forEach((x, i) => { h[i] = (h[i] + x) & M64; });
  }
  const out = new Uint8Array(64);
  h.forEach((x, i) => { for (let j = 0; j < 8; j++) out[8 * i + j] = Number((x >> BigInt(56 - 8 * j)) & 0xffn); });
  return out;
}

/** random.Random(text) of Python (seed version 2). */
export class PyRandom {
  /** @param {string} text */
  constructor(text) {
    const bytes = new TextEncoder().encode(text);
    const all = new Uint8Array(bytes.length + 64);
    all.set(bytes);
    all.set(sha512(bytes), bytes.length);
    // the big-endian integer's 32-bit words, least significant first
    /** @type {number[]} */
    const key = [];
    for (let end = all.length; end > 0; end -= 4) {
      let x = 0;
      for (let i = Math.max(0, end - 4); i < end; i++) x = (x * 256 + all[i]) >>> 0;
      key.push(x);
    }
    while (key.length > 1 && key[key.length - 1] === 0) key.pop();
    this.mt = new Uint32Array(624);
    this.i = 625;
    this.initByArray(key);
  }

  /** @param {number} s */
  initGenrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.i = 624;
  }

  /** @param {number[]} key */
  initByArray(key) {
    this.initGenrand(19650218);
    const mt = this.mt;
    let i = 1, j = 0;
    for (let k = Math.max(624, key.length); k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++; j++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32 random bits. */
  uint32() {
    const mt = this.mt;
    if (this.i >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.i = 0;
    }
    let y = mt[this.i++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random.random(): 53 bits in [0, 1). */
  random() {
    const a = this.uint32() >>> 5, b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** getrandbits(k) for k in 1..32. @param {number} k */
  bits(k) {
    return this.uint32() >>> (32 - k);
  }

  /** randrange(n) = _randbelow(n), n in 1..2**32. @param {number} n */
  below(n) {
    const k = Math.floor(Math.log2(n)) + 1;  // n.bit_length()
    let r = this.bits(k);
    while (r >= n) r = this.bits(k);
    return r;
  }

  /** @template T @param {T[]} items @returns {T} */
  choice(items) {
    return items[this.below(items.length)];
  }

  /** choices(items, weights)[0]: bisect on the running sums. @template T
      @param {T[]} items @param {number[]} weights @returns {T} */
  weighted(items, weights) {
    /** @type {number[]} */
    const cum = [];
    let total = 0;
    for (const w of weights) cum.push((total += w));
    const x = this.random() * total;
    let lo = 0, hi = items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (x < cum[mid]) hi = mid; else lo = mid + 1;
    }
    return items[lo];
  }
}
