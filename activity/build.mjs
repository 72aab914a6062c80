// Bundles Discord's embedded app SDK (sdk-entry.js) with the packages it imports into
// one ES module the page serves, server/web/discord-sdk.js. Run by `make activity-sdk`
// after `npm ci` has installed exactly what package-lock.json names. The file's first
// lines name the SDK's version, esbuild's, and every bundled package with its licence,
// read from package-lock.json (tests/server/test_web_activity.py holds them to it).

import { readFileSync, writeFileSync } from "node:fs";
import * as esbuild from "esbuild";

const OUT = "../server/web/discord-sdk.js";
const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));

const result = await esbuild.build({
  entryPoints: ["sdk-entry.js"],
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  legalComments: "eof",
  metafile: true,
  write: false,
});

// The packages whose files went into the bundle, by their folder under node_modules.
const bundled = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match) bundled.add(match[1]);
}
const packages = [...bundled].sort().map((name) => {
  const entry = lock.packages[`node_modules/${name}`];
  return `${name} ${entry.version} (${entry.license})`;
});
const sdk = lock.packages["node_modules/@discord/embedded-app-sdk"].version;
const banner = [
  `// Discord's embedded app SDK ${sdk}, for the page inside Discord (server/web/activity.js).`,
  `// Built by \`make activity-sdk\` (activity/build.mjs) with esbuild ${esbuild.version} from activity/package-lock.json.`,
  `// Bundled packages: ${packages.join(", ")}.`,
  "",
].join("\n");
writeFileSync(OUT, banner + result.outputFiles[0].text);
console.log(`activity-sdk: ${OUT}, ${result.outputFiles[0].contents.length} bytes; ${packages.join(", ")}`);
