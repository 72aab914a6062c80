// Small sounds made on the spot with WebAudio (no sound files to load): a card laid
// down, a draw from the stock, a card home, a refused move and a win. Off unless the
// player turns sound on (settings.js). The audio context is made at the first sound,
// which always follows a tap or a key, as browsers require.

const SHAPES = {
  // [kind, frequency Hz, length s, volume]: a short noise is a card; tones are signals.
  move: [["noise", 1800, 0.05, 0.35]],
  draw: [["noise", 3200, 0.04, 0.25]],
  home: [["tone", 880, 0.08, 0.18]],
  error: [["tone", 150, 0.14, 0.2]],
  win: [
    ["tone", 523, 0.1, 0.18],
    ["tone", 659, 0.1, 0.18],
    ["tone", 784, 0.1, 0.18],
    ["tone", 1047, 0.22, 0.18],
  ],
};

export class Sounds {
  constructor(settings) {
    this.settings = settings;
    this.context = null;
    this.noise = null;
  }

  /** Play ``name`` (a key of SHAPES) when sound is on; a page without WebAudio is silent. */
  play(name) {
    if (!this.settings.get("sound") || !SHAPES[name]) return;
    const AudioContext = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!AudioContext) return;
    this.context ??= new AudioContext();
    if (this.context.state === "suspended") this.context.resume();
    let at = this.context.currentTime;
    for (const [kind, frequency, length, volume] of SHAPES[name]) {
      this.voice(kind, frequency, length, volume, at);
      at += kind === "tone" && name === "win" ? length * 0.9 : 0;
    }
  }

  voice(kind, frequency, length, volume, at) {
    const context = this.context;
    const gain = context.createGain();
    gain.gain.setValueAtTime(volume, at);
    gain.gain.exponentialRampToValueAtTime(0.001, at + length);
    gain.connect(context.destination);
    let source;
    if (kind === "noise") {
      source = context.createBufferSource();
      source.buffer = this.noiseBuffer();
      const filter = context.createBiquadFilter();
      filter.type = "bandpass";
      filter.frequency.value = frequency;
      source.connect(filter);
      filter.connect(gain);
    } else {
      source = context.createOscillator();
      source.type = "triangle";
      source.frequency.value = frequency;
      source.connect(gain);
    }
    source.start(at);
    source.stop(at + length);
  }

  /** A tenth of a second of white noise, made once. */
  noiseBuffer() {
    if (!this.noise) {
      const context = this.context;
      this.noise = context.createBuffer(1, Math.round(context.sampleRate * 0.1), context.sampleRate);
      const data = this.noise.getChannelData(0);
      for (let i = 0; i < data.length; i += 1) data[i] = Math.random() * 2 - 1;
    }
    return this.noise;
  }
}
