#!/usr/bin/env node
// Profiles ONNX models with ONNX Runtime (onnxruntime-node, CPU execution
// provider) and writes ORT's own profile JSON (the Chrome trace that
// SessionOptions.enableProfiling writes), unmodified, for ridgeline's
// predicted-vs-measured tests and measurements.
//
// Setup (once; the CPU runtime ships inside the npm package, no download):
//   (cd tests/profiles && npm install --ignore-scripts)
// Regenerate the committed profiles (from the repository root):
//   node tests/profiles/profile_models.js
// Profile another model:
//   node tests/profiles/profile_models.js --model /tmp/models/resnet50.onnx \
//       --levels disabled --runs 11 --out /tmp/profiles
//
// Every session runs single-threaded (intra- and inter-op threads 1) with the
// sequential executor, once per graph optimization level (default: disabled
// = ORT_DISABLE_ALL and all = ORT_ENABLE_ALL), `--runs` times on the same
// deterministic input. Output: OUT/<model>_<level>.json. The first run is a
// warm-up; readers may skip it (ridgeline: ProfileOptions::skip_runs).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_MODELS = [
  path.join(ROOT, 'tests', 'fixtures', 'profile_models', 'small_cnn.onnx'),
  path.join(ROOT, 'tests', 'fixtures', 'profile_models', 'small_transformer.onnx'),
];

function usage(message) {
  if (message) console.error(`profile_models.js: ${message}`);
  console.error(
      'usage: node profile_models.js [--model FILE.onnx]... [--levels disabled,all]\n' +
      '                              [--runs N] [--out DIR] [--dim NAME=VALUE]...');
  process.exit(1);
}

function parseArgs(argv) {
  const args = {
    models: [],
    levels: ['disabled', 'all'],
    runs: 4,
    out: path.join(ROOT, 'tests', 'fixtures', 'profiles'),
    dims: {},
  };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--model') args.models.push(path.resolve(value()));
    else if (flag === '--levels') args.levels = value().split(',');
    else if (flag === '--runs') args.runs = Number(value());
    else if (flag === '--out') args.out = path.resolve(value());
    else if (flag === '--dim') {
      const [name, v] = value().split('=');
      args.dims[name] = Number(v);
    } else usage(`unknown flag ${flag}`);
  }
  if (args.models.length === 0) args.models = DEFAULT_MODELS;
  if (!Number.isInteger(args.runs) || args.runs < 1) usage('--runs must be >= 1');
  const known = ['disabled', 'basic', 'extended', 'layout', 'all'];
  for (const level of args.levels) {
    if (!known.includes(level)) usage(`unknown level ${level} (${known.join('|')})`);
  }
  return args;
}

// A deterministic pseudo-random fill in [-1, 1) (a 32-bit LCG).
function fill(array) {
  let state = 12345;
  for (let i = 0; i < array.length; ++i) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    array[i] = state / 2 ** 31 - 1;
  }
  return array;
}

function makeInput(ort, meta, dims) {
  if (!meta.isTensor) throw new Error(`input ${meta.name} is not a tensor`);
  const shape = meta.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : (dims[d] ?? 1)));
  const size = shape.reduce((a, b) => a * b, 1);
  switch (meta.type) {
    case 'float32': return new ort.Tensor('float32', fill(new Float32Array(size)), shape);
    case 'int64': return new ort.Tensor('int64', new BigInt64Array(size), shape);
    case 'int32': return new ort.Tensor('int32', new Int32Array(size), shape);
    case 'bool': return new ort.Tensor('bool', new Uint8Array(size), shape);
    default: throw new Error(`input ${meta.name}: unsupported type ${meta.type}`);
  }
}

async function profileOne(ort, model, level, args) {
  const base = path.basename(model, '.onnx');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ridgeline-profile-'));
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: level,
    enableProfiling: true,
    profileFilePrefix: path.join(tmp, 'ort'),
  });
  const feeds = {};
  for (const meta of session.inputMetadata) feeds[meta.name] = makeInput(ort, meta, args.dims);
  const wall = [];
  for (let r = 0; r < args.runs; ++r) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  session.endProfiling();
  await session.release();
  const written = fs.readdirSync(tmp).filter((f) => f.endsWith('.json'));
  if (written.length !== 1) throw new Error(`expected one profile in ${tmp}, found ${written}`);
  const out = path.join(args.out, `${base}_${level}.json`);
  fs.copyFileSync(path.join(tmp, written[0]), out);
  fs.rmSync(tmp, {recursive: true, force: true});
  const ms = wall.map((x) => x.toFixed(2)).join(' ');
  console.log(`wrote ${path.relative(process.cwd(), out)} (ORT ${ort.env.versions.common}, ` +
              `level ${level}, ${args.runs} runs, wall ms per run: ${ms})`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    console.error('profile_models.js: onnxruntime-node is not installed; run ' +
                  '(cd tests/profiles && npm install --ignore-scripts)\n' + e.message);
    process.exit(2);
  }
  fs.mkdirSync(args.out, {recursive: true});
  for (const model of args.models) {
    for (const level of args.levels) await profileOne(ort, model, level, args);
  }
}

main().catch((e) => {
  console.error(`profile_models.js: ${e.stack || e}`);
  process.exit(2);
});
