import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { localTableNames, tableEnvironmentName, tableKeys } from '../../lambdas/adapters/dynamodb/table-definitions';
import { bundleAliases, bundleSettings } from '../../lib/bundle-settings';
import { bundleDefines } from '../../lambdas/composition/bundle-defines';
import { inlineHtmlRenderer } from '../../lambdas/mail/ingest-mail';
import { authorizerFunction, functionManifest, type FunctionDeclaration } from '../../lambdas/function-manifest';
import { startTestService, type TestService } from '../support/local-service';
import { runProcess } from '../support/run-process';

const projectRoot = join(__dirname, '..', '..');
const newslettersDir = join(projectRoot, 'test', 'fixtures', 'newsletters');
let service: TestService;
let outDir: string;
/** Stands in for Secrets Manager on loopback: records each GetSecretValue and answers with the cursor secret. */
let secretsManager: Server;
const secretReads: { target: string; secretId: string }[] = [];
const cursorSecretArn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:CursorSecret-AbCdEf';

const bundles = new Map<string, Promise<{ outfile: string; inputs: string[] }>>();

/** Bundles a declared function exactly as the stack does, once per suite; returns the bundle's path and what is in it. */
function bundleWithInputs(declaration: FunctionDeclaration): Promise<{ outfile: string; inputs: string[] }> {
  const built = bundles.get(declaration.name) ?? buildBundle(declaration);
  bundles.set(declaration.name, built);
  return built;
}

async function buildBundle(declaration: FunctionDeclaration): Promise<{ outfile: string; inputs: string[] }> {
  const outfile = join(outDir, declaration.name, 'index.js');
  const result = await build({
    entryPoints: [join(projectRoot, declaration.entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: bundleSettings.target,
    mainFields: [...bundleSettings.mainFields],
    alias: { ...bundleAliases },
    define: bundleDefines(declaration),
    minify: bundleSettings.minify,
    sourcemap: bundleSettings.sourceMap,
    sourcesContent: bundleSettings.sourcesContent,
    metafile: true,
    logLevel: 'silent',
  });
  // What is in the bundle: the inputs that left code in it, not every file esbuild read and then dropped.
  const output = Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint !== undefined)!;
  return { outfile, inputs: Object.entries(output.inputs).flatMap(([input, { bytesInOutput }]) => (bytesInOutput > 0 ? [input] : [])) };
}

/** A function of the manifest by its name. */
function declared(name: string): FunctionDeclaration {
  const declaration = functionManifest.find((candidate) => candidate.name === name);
  if (!declaration) throw new Error(`no function ${name} in the manifest`);
  return declaration;
}

async function bundle(name: string): Promise<string> {
  return (await bundleWithInputs(declared(name))).outfile;
}

/**
 * Runs the bundled authorizer, then the bundled route with the authorizer's context, in a fresh
 * Node process configured as Lambda would be, against the test's dynalite.
 */
async function invoke(authorizer: string, route: string, key: string, path: string, resource: string) {
  const script = `
    const authorizer = require(${JSON.stringify(authorizer)});
    const route = require(${JSON.stringify(route)});
    (async () => {
      const headers = { Authorization: 'Bearer ${key}' };
      const requestContext = { requestId: 'bundle-check-0000000001', resourcePath: '${resource}', httpMethod: 'GET' };
      const auth = await authorizer.handler({ type: 'REQUEST', methodArn: 'arn:aws:execute-api:x', resource: '${resource}',
        path: '${path}', httpMethod: 'GET', headers, multiValueHeaders: { Authorization: [headers.Authorization] },
        queryStringParameters: null, multiValueQueryStringParameters: null, pathParameters: null, requestContext });
      const context = Object.fromEntries(Object.entries(auth.context).map(([k, v]) => [k, String(v)]));
      const response = await route.handler({ resource: '${resource}', path: '${path}', httpMethod: 'GET', headers,
        multiValueHeaders: {}, queryStringParameters: null, multiValueQueryStringParameters: null, pathParameters: null,
        body: null, isBase64Encoded: false, requestContext: { ...requestContext, authorizer: { ...context, principalId: auth.principalId } } },
        { getRemainingTimeInMillis: () => 10000, awsRequestId: 'x' });
      process.stdout.write(JSON.stringify(response), () => process.exit(0));
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const tables = localTableNames();
  // Asynchronous: dynalite answers from this very process, so it must not be blocked.
  const { stdout, stderr } = await runProcess(process.execPath, ['-e', script], {
    env: {
      PATH: process.env.PATH,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: service.runtime.dynamodbEndpoint,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      TEMPMAIL_ENV: 'local',
      CURSOR_SECRET_ARN: cursorSecretArn,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(secretsManager.address() as AddressInfo).port}`,
      LOG_LEVEL: 'silent',
      ...Object.fromEntries(tableKeys.map((k) => [tableEnvironmentName(k), tables[k]])),
    },
  });
  return { stdout, stderr };
}

beforeAll(async () => {
  secretsManager = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      secretReads.push({ target: String(request.headers['x-amz-target']), secretId: JSON.parse(body).SecretId });
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ ARN: cursorSecretArn, Name: 'CursorSecret', SecretString: 'bundle-check-cursor-secret-0123456789abcdef' }));
    });
  });
  await new Promise<void>((resolve) => secretsManager.listen(0, '127.0.0.1', resolve));
  service = await startTestService();
  outDir = mkdtempSync(join(tmpdir(), 'tempmail-bundles-'));
}, 60_000);
afterAll(async () => {
  secretsManager.close();
  await service.close();
  rmSync(outDir, { recursive: true, force: true });
});

describe('the bundles that ship', () => {
  it('authorize and serve a real request against DynamoDB, as Lambda would run them', async () => {
    const { accountId, apiKey } = await service.account('free');
    const authorizer = await bundle(authorizerFunction.name);
    const listDomains = await bundle('listDomains');
    const run = await invoke(authorizer, listDomains, apiKey, '/v1/domains', '/v1/domains');
    expect(run.stderr).toBe('');
    const response = JSON.parse(run.stdout);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).data).toEqual([
      { domain: 'tempmail.localhost', create_enabled: true, receive_enabled: true },
    ]);
    expect(response.headers['X-Request-Id']).toBe('req_bundle-check-0000000001');
    expect(await service.remaining(accountId)).toBe(99);
    // The cursor route read its secret from Secrets Manager, once, by the ARN the stack gives it.
    expect(secretReads).toEqual([{ target: 'secretsmanager.GetSecretValue', secretId: cursorSecretArn }]);
  }, 60_000);

  it('refuse an unknown key with 401 from the bundled pipeline', async () => {
    const authorizer = await bundle(authorizerFunction.name);
    const usage = await bundle('getUsage');
    const run = await invoke(authorizer, usage, `tm_local_${'C'.repeat(43)}`, '/v1/usage', '/v1/usage');
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout).statusCode).toBe(401);
  }, 60_000);

  it('take AWS credentials from the environment alone, without the default chain and its SSO/STS clients', async () => {
    const { inputs } = await bundleWithInputs(declared('getMessage'));
    const packages = inputs.filter((input) => /node_modules\/@aws-sdk\/(nested-clients|credential-provider-(node|sso|ini|web-identity|env))\//.test(input));
    expect(new Set(packages.map((input) => input.replace(/^.*node_modules\/(@aws-sdk\/[^/]+)\/.*$/, '$1')))).toEqual(
      new Set(['@aws-sdk/credential-provider-env']),
    );
  }, 60_000);

  it('decode mail with one copy of libmime, charsets through iconv-lite and encoding-japanese as the parser ships them', async () => {
    // The parser's own module, bundled with the parser function's settings, so that its export can be called.
    const { outfile, inputs } = await bundleWithInputs({ ...declared('parser'), name: 'parseMail', entry: 'lambdas/mail/parse-mail.ts' });
    // mailparser imports libmime and mailsplit requires it: both reach its CommonJS build alone.
    const libmime = inputs.filter((input) => input.includes('node_modules/libmime/'));
    expect(libmime.length).toBeGreaterThan(0);
    expect(libmime.filter((input) => !input.includes('/libmime/dist/cjs/'))).toEqual([]);
    const raw = [
      'From: =?ISO-8859-1?Q?Andr=E9?= <andre@example.com>',
      'To: inbox@tempmail.localhost',
      'Subject: =?ISO-2022-JP?B?GyRCPHU/LiVGJTklSBsoQg==?=',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain; charset=gbk',
      'Content-Transfer-Encoding: base64',
      '',
      '1tDOxNPKvP6jrM341rcgaHR0cHM6Ly9leGFtcGxlLmNvbS9h',
      '--b',
      'Content-Type: text/plain; name="r.txt"',
      "Content-Disposition: attachment; filename*=utf-8''r%C3%A9sum%C3%A9.txt",
      '',
      'attached',
      '--b--',
      '',
    ].join('\r\n');
    const script = `
      const { Readable } = require('node:stream');
      const { parseMail } = require(${JSON.stringify(outfile)});
      const blobs = { put: async (key, body) => { let size = 0; for await (const chunk of body) size += chunk.length; return { size }; } };
      parseMail(Readable.from([Buffer.from(${JSON.stringify(raw)})]), { blobs, keyPrefix: 'blobs/' }).then(
        (mail) => process.stdout.write(JSON.stringify(mail), () => process.exit(0)),
        (error) => { console.error(error); process.exit(1); },
      );
    `;
    const { stdout, stderr } = await runProcess(process.execPath, ['-e', script], { env: { PATH: process.env.PATH } });
    expect(stderr).toBe('');
    const mail = JSON.parse(stdout);
    expect(mail).toMatchObject({ from: '"André" <andre@example.com>', subject: '受信テスト', to: ['inbox@tempmail.localhost'] });
    expect(mail.text.trim()).toBe('中文邮件，网址 https://example.com/a');
    expect(mail.attachments).toEqual([expect.objectContaining({ filename: 'résumé.txt', sizeBytes: 8 })]);
    expect(mail.failure).toBeUndefined();
  }, 60_000);

  it('render and sanitize HTML with one build of each HTML library, as the unbundled code does', async () => {
    // The parser's HTML renderings, bundled with the parser function's settings.
    const { outfile, inputs } = await bundleWithInputs({ ...declared('parser'), name: 'readMail', entry: 'lambdas/mail/ingest-mail.ts' });
    // sanitize-html requires the htmlparser2 family and html-to-text imports it: one build of each package, one copy of each entities version.
    const family = /node_modules\/((?:[^/]+\/node_modules\/)?(?:htmlparser2|domutils|domhandler|domelementtype|dom-serializer|entities))\//;
    const copies = [...new Set(inputs.flatMap((input) => input.match(family)?.[1] ?? []))].sort();
    expect(copies).toEqual(['dom-serializer', 'domelementtype', 'domhandler', 'entities', 'sanitize-html/node_modules/domutils', 'sanitize-html/node_modules/entities', 'sanitize-html/node_modules/htmlparser2']);
    expect(inputs.filter((input) => family.test(input) && /\/esm\//.test(input))).toEqual([]);
    // mailparser's link finder is the stand-in that builds linkify-it on first use.
    expect(inputs).toContain('lambdas/mail/linkify-on-first-use.ts');
    const samples = [
      '<p>caf&eacute; &amp; cr&egrave;me &#x1F600; &notin; &notanentity; AT&T &lt;b&gt;</p><pre>a\n  b</pre>',
      '<table><tr><td>1</td><td>2</td></tr></table><ul><li>one<li>two</ul><a href="https://example.com/?a=1&amp;b=2">link</a>',
      '<svg><style><img src=x onerror=alert(1)></style></svg><math><mi xlink:href="javascript:alert(1)">x</mi></math>',
      '<div style="color: red; background: url(javascript:alert(1))" title="&quot;q&quot;">styled</div><!-- c --><![CDATA[d]]>',
      '<h1>Title</h1><img src="cid:logo" alt="Logo &amp; co"><br><blockquote>quoted</blockquote><script>alert(1)</script>',
      ...readdirSync(newslettersDir).map((name) => readFileSync(join(newslettersDir, name), 'utf8')),
    ];
    const samplesFile = join(outDir, 'html-samples.json');
    writeFileSync(samplesFile, JSON.stringify(samples));
    const script = `
      const { inlineHtmlRenderer } = require(${JSON.stringify(outfile)});
      const samples = require(${JSON.stringify(samplesFile)});
      const out = samples.map((html) => ({ text: inlineHtmlRenderer.textOf(html), html: inlineHtmlRenderer.sanitize(html, { idPrefix: 'm-' }) }));
      process.stdout.write(JSON.stringify(out), () => process.exit(0));
    `;
    const { stdout, stderr } = await runProcess(process.execPath, ['-e', script], { env: { PATH: process.env.PATH } });
    expect(stderr).toBe('');
    const unbundled = samples.map((html) => ({ text: inlineHtmlRenderer.textOf(html), html: inlineHtmlRenderer.sanitize(html, { idPrefix: 'm-' }) }));
    expect(JSON.parse(stdout)).toEqual(unbundled);
    expect(unbundled[0]).toEqual({ text: expect.stringContaining('café & crème 😀 ∉'), html: expect.stringContaining('café &amp; crème') });
  }, 60_000);

  it('hold the clients their manifest row names, and not the others', async () => {
    /** The optional parts of the composition, by the package each brings into a bundle. */
    const parts = { blobs: '@aws-sdk/client-s3', cursorSecret: '@aws-sdk/client-secrets-manager', identity: 'jose' };
    const held = async (name: string) => {
      const { inputs } = await bundleWithInputs(declared(name));
      return Object.entries(parts).flatMap(([part, pkg]) => (inputs.some((input) => input.includes(`node_modules/${pkg}/`)) ? [part] : []));
    };
    expect(await held('getUsage')).toEqual([]);
    expect(await held('getMessage')).toEqual(['blobs']);
    expect(await held('listDomains')).toEqual(['cursorSecret']);
    expect(await held('consoleListEmails')).toEqual(['cursorSecret', 'identity']);
    expect(await held('sweeper')).toEqual(['blobs']);
  }, 60_000);
});

