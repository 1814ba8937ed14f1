'use strict';
/* report.js RAWDIR OUT: what c8 and nyc do after a run, without them.
 * Reads the V8 coverage files NODE_V8_COVERAGE left in RAWDIR (one per
 * process: the runner and each test file's child), keeps the package's own
 * sources (relative to the current directory, not test/, tools/ or
 * node_modules/), merges the processes' counts per function, and writes a
 * summary that depends only on the sources and the tests: the same bytes
 * wherever the package lies. */
const fs = require('node:fs');
const path = require('node:path');
const url = require('node:url');

const [rawdir, out] = process.argv.slice(2);
const root = process.cwd();
const files = {};

for (const name of fs.readdirSync(rawdir).sort()) {
	if (!name.endsWith('.json'))
		continue;
	const raw = JSON.parse(fs.readFileSync(path.join(rawdir, name), 'utf8'));
	for (const script of raw.result) {
		if (!script.url.startsWith('file:'))
			continue;
		const rel = path.relative(root, url.fileURLToPath(script.url));
		if (rel.startsWith('..') || /^(test|tools|node_modules)\//.test(rel))
			continue;
		const fns = (files[rel] = files[rel] || {});
		for (const fn of script.functions) {
			const r = fn.ranges[0];
			const key = `${fn.functionName || '(anonymous)'}@${r.startOffset}`;
			fns[key] = (fns[key] || 0) + r.count;
		}
	}
}

const summary = {};
for (const rel of Object.keys(files).sort()) {
	const fns = files[rel];
	const keys = Object.keys(fns).sort();
	summary[rel] = {
		functions: keys.length,
		covered: keys.filter((k) => fns[k] > 0).length,
		uncovered: keys.filter((k) => fns[k] === 0),
	};
}
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(summary, null, 2) + '\n');
for (const rel of Object.keys(summary))
	console.log(`${rel}: ${summary[rel].covered}/${summary[rel].functions} functions`);
