import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/free-port';
import { assertMatchesOpenApi } from '../helpers/openapi-contract';

/**
 * Every shell example of README.md and docs/*.md, run as a user pastes it, against `npm start`
 * with the committed configuration (local/roomkeeper.local.json). The convention the pages
 * follow (docs/local-cloud.md, "Examples on these pages"):
 *
 * - A ```bash or ```sh block containing `curl` is an example. Its requests go to
 *   `localhost:3000` (the default port); here that address is replaced by the port of the
 *   cloud this test started, and nothing else is changed.
 * - A page's examples run in order in ONE shell, so a block may use the variables an earlier
 *   block of the same page set ($TOKEN, $ADMIN, $ROOM), exactly as in a terminal.
 * - Each request must answer 2xx, or the status a comment after it states (`# 404 …`, on its
 *   own line or the request's last), and its answer must match docs/openapi.json. A request
 *   with a body must send it as `application/json`, the only type the document accepts.
 * - A block written for a deployed stack starts with the comment `# deployed stack` and talks
 *   to `$API`: it cannot run here, and is listed, never silently dropped.
 * - `npm ci` and `npm start` lines stand for the first terminal, which the test already is;
 *   `npm run <script>` runs for real from the repository root, with its input closed (a user
 *   who types nothing and presses Ctrl-D).
 * - Output is shown in ```json / ```text blocks or `#` comments, never as commands.
 */
const root = join(__dirname, '../..');
const shellLanguages = new Set(['bash', 'sh', 'shell']);
const deployedMarker = /^#\s*deployed stack\b/i;
/** The address the pages use; the default `PORT` of `npm start`. */
const documentedAddress = /\b(localhost|127\.0\.0\.1):3000\b/g;
const pageTimeoutMs = 45_000;

interface Example {
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly text: string;
  readonly deployed: boolean;
  /** For each `curl` the block runs, in order: the status its comment states, if any. */
  readonly expected: (number | undefined)[];
}

function pages(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** The fenced shell blocks of a page that contain `curl`. */
function examplesOf(page: string): Example[] {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[2] ?? '```';
    const language = (open[3] ?? '').toLowerCase();
    let end = i + 1;
    while (end < lines.length && !(lines[end] ?? '').trim().startsWith(fence)) end++;
    const text = lines.slice(i + 1, end).join('\n');
    if (shellLanguages.has(language)) {
      const { curls } = scan(text);
      if (curls.length > 0) {
        examples.push({
          page,
          line: i + 1,
          text,
          deployed: deployedMarker.test(text.trimStart()),
          expected: curls.map((c) => c.expected),
        });
      }
    }
    i = end;
  }
  return examples;
}

/**
 * Splits shell text into code and comments (quotes respected, across lines) and finds each
 * `curl` in command position with the first status comment after it, before the next `curl`.
 */
function scan(text: string): { curls: { at: number; expected: number | undefined }[] } {
  const comments: { at: number; text: string }[] = [];
  let code = '';
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === quote) quote = '';
      else if (c === '\\' && quote === '"') {
        code += c + (text[i + 1] ?? '');
        i++;
        continue;
      }
      code += ' ';
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      code += ' ';
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1] as string))) {
      const eol = text.indexOf('\n', i);
      const stop = eol === -1 ? text.length : eol;
      comments.push({ at: i, text: text.slice(i, stop) });
      code += ' '.repeat(stop - i);
      i = stop - 1;
      continue;
    }
    code += c;
  }
  const positions = [...code.matchAll(/(^|[\s(|;&])curl(?=\s)/g)].map((m) => m.index + m[1]!.length);
  return {
    curls: positions.map((at, n) => {
      const next = positions[n + 1] ?? Infinity;
      const status = comments
        .filter((comment) => comment.at > at && comment.at < next)
        .map((comment) => /^#\s*(\d{3})\b/.exec(comment.text)?.[1])
        .find((s) => s !== undefined);
      return { at, expected: status === undefined ? undefined : Number(status) };
    }),
  };
}

/** Wraps the page's blocks in one bash script that records every curl call the blocks make. */
function scriptFor(examples: readonly Example[], port: number): string {
  const blocks = examples.map(
    (example, index) =>
      `# ---- ${example.page}:${example.line}\nRK_BLOCK=${index}\n${example.text.replace(documentedAddress, `$1:${port}`)}\n`,
  );
  return [
    'set -eo pipefail',
    // Each call: its arguments, what was sent (trace), the answer's head and body, curl's exit code.
    'curl() {',
    '  local n; n=$(( $(cat "$RK_CALLS/count") + 1 )); echo "$n" > "$RK_CALLS/count"',
    '  local d="$RK_CALLS/$n"; mkdir "$d"; echo "$RK_BLOCK" > "$d/block"; printf "%q " curl "$@" > "$d/command"',
    '  local rc=0',
    '  command curl "$@" --trace-ascii "$d/trace" -D "$d/head" -o "$d/body" || rc=$?',
    '  echo "$rc" > "$d/rc"',
    '  [ -f "$d/body" ] && cat "$d/body"',
    '  return "$rc"',
    '}',
    'npm() {',
    '  case "$1" in',
    '    ci|start|install) return 0 ;;',
    '    *) (cd "$RK_ROOT" && command npm "$@" < /dev/null) ;;',
    '  esac',
    '}',
    ...blocks,
  ].join('\n');
}

interface Call {
  readonly block: number;
  readonly command: string;
  readonly rc: number;
  readonly method: string;
  readonly path: string;
  readonly requestContentType: string | undefined;
  readonly sentBody: boolean;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly rawBody: string;
}

function readCalls(dir: string): Call[] {
  const count = Number(readFileSync(join(dir, 'count'), 'utf8'));
  const calls: Call[] = [];
  for (let n = 1; n <= count; n++) {
    const d = join(dir, String(n));
    const read = (name: string) => (existsSync(join(d, name)) ? readFileSync(join(d, name), 'utf8') : '');
    const sent = read('trace')
      .split('\n')
      .reduce<{ section: string; header: string[]; data: boolean }>(
        (acc, line) => {
          if (line.startsWith('=> Send header')) return { ...acc, section: 'header' };
          if (line.startsWith('=> Send data')) return { ...acc, section: 'data', data: true };
          if (line.startsWith('<=') || line.startsWith('==')) return { ...acc, section: '' };
          const content = /^[0-9a-f]{4}: (.*)$/.exec(line)?.[1];
          if (acc.section === 'header' && content !== undefined && content !== '') acc.header.push(content);
          return acc;
        },
        { section: '', header: [], data: false },
      );
    const [method = '', target = ''] = (sent.header[0] ?? '').split(' ');
    const requestContentType = sent.header
      .find((h) => /^content-type:/i.test(h))
      ?.slice('content-type:'.length)
      .trim();
    // The last response head (an interim 100 Continue may come first).
    const heads = read('head').split(/\r?\n(?=HTTP\/)/);
    const head = (heads.at(-1) ?? '').split(/\r?\n/).filter((l) => l !== '');
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const rawBody = read('body');
    let body: unknown = undefined;
    if (rawBody !== '') {
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
    }
    calls.push({
      block: Number(read('block')),
      command: read('command').trim(),
      rc: Number(read('rc') || -1),
      method,
      path: target.split('?')[0] ?? '',
      requestContentType,
      sentBody: sent.data,
      status,
      headers,
      body,
      rawBody,
    });
  }
  return calls;
}

function runScript(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const bash = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    bash.stdout.on('data', (c: Buffer) => (output += c.toString()));
    bash.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => {
      output += `\n[test] still running after ${pageTimeoutMs} ms: stopped\n`;
      try {
        process.kill(-(bash.pid as number), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, pageTimeoutMs);
    bash.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const examples = pages().flatMap(examplesOf);
const local = examples.filter((e) => !e.deployed);
const localPages = [...new Set(local.map((e) => e.page))];

let cloud: { npm: ChildProcess; port: number; output: () => string } | undefined;

beforeAll(async () => {
  const port = await freePort();
  // `npm start` as the README says, in its own process group (the user's first terminal).
  const npm = spawn('npm', ['start', '--', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  npm.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  cloud = { npm, port, output: () => output };
  const startedAt = Date.now();
  for (;;) {
    if (npm.exitCode !== null) throw new Error(`npm start exited during start-up:\n${output}`);
    if (Date.now() - startedAt > 90_000) throw new Error(`npm start was not healthy within 90 s:\n${output}`);
    const status = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
}, 100_000);

afterAll(async () => {
  if (!cloud) return;
  const { npm } = cloud;
  if (npm.exitCode !== null) return;
  const exited = new Promise((done) => npm.once('exit', done));
  process.kill(-(npm.pid as number), 'SIGINT');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
  clearTimeout(timer);
  if (npm.exitCode === null) process.kill(-(npm.pid as number), 'SIGKILL');
  // A game that outlives npm by a moment may still hold the pipes open.
  npm.stdout?.destroy();
  npm.stderr?.destroy();
}, 20_000);

describe('shell examples of the docs', () => {
  it('are found, and every one is either run here or marked as for a deployed stack', () => {
    expect(localPages.length).toBeGreaterThan(0);
    const listed = examples.map((e) => `${e.page}:${e.line} ${e.deployed ? 'deployed stack (not run)' : 'run'}`);
    process.stdout.write(`docs examples:\n  ${listed.join('\n  ')}\n`);
    for (const example of examples.filter((e) => e.deployed)) {
      // A deployed block talks to the deployed API only: nothing in it may pass for a local run.
      const talksLocally = new RegExp(documentedAddress.source).test(example.text);
      expect({ at: `${example.page}:${example.line}`, local: talksLocally }).toEqual({
        at: `${example.page}:${example.line}`,
        local: false,
      });
    }
  });

  it.each(localPages)(
    '%s runs as written',
    async (page) => {
      const port = cloud?.port as number;
      const pageExamples = local.filter((e) => e.page === page);
      const work = mkdtempSync(join(tmpdir(), 'roomkeeper-docs-examples-'));
      const calls = join(work, '.calls');
      try {
        const cwd = join(work, 'terminal');
        for (const dir of [calls, cwd]) mkdirSync(dir);
        writeFileSync(join(calls, 'count'), '0');
        const run = await runScript(scriptFor(pageExamples, port), cwd, {
          ...process.env,
          RK_CALLS: calls,
          RK_ROOT: root,
        });
        const recorded = readCalls(calls);
        const problems: string[] = [];
        if (run.code !== 0) problems.push(`the shell exited with ${run.code}`);
        pageExamples.forEach((example, index) => {
          const made = recorded.filter((c) => c.block === index).length;
          if (run.code === 0 && made !== example.expected.length) {
            problems.push(`${page}:${example.line}: ${example.expected.length} curl commands, ${made} requests made`);
          }
        });
        for (const call of recorded) {
          const example = pageExamples[call.block] as Example;
          const expected = example.expected[recorded.filter((c) => c.block === call.block).indexOf(call)];
          const where = `${page}:${example.line} ${call.method} ${call.path}`;
          if (call.rc !== 0) {
            problems.push(`${where}: curl exited with ${call.rc}: ${call.command}`);
            continue;
          }
          if (call.sentBody && !/^application\/json\b/i.test(call.requestContentType ?? '')) {
            problems.push(
              `${where}: body sent as ${call.requestContentType ?? 'no Content-Type'}, not application/json`,
            );
          }
          const statusOk = expected === undefined ? call.status >= 200 && call.status < 300 : call.status === expected;
          if (!statusOk) {
            problems.push(`${where}: ${call.status} (expected ${expected ?? '2xx'}): ${call.rawBody.slice(0, 300)}`);
          }
          try {
            assertMatchesOpenApi({
              method: call.method,
              path: call.path,
              status: call.status,
              headers: call.headers,
              body: call.body,
            });
          } catch (error) {
            problems.push(`${where}: does not match docs/openapi.json: ${(error as Error).message}`);
          }
        }
        if (problems.length > 0) process.stdout.write(`${page} transcript:\n${run.output}\n`);
        expect(problems).toEqual([]);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
