// Synthetic secrets for tests: seeded random strings in the shapes of real credentials (never real keys), and look-alikes that must stay.

/** A seeded generator of numbers in [0, 1): the same corpus on every run. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** `length` characters drawn from `alphabet`. */
export function drawn(random: () => number, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

/** The body of a PEM-like block: `lines` lines of `width` base64 characters, the first starting with `prefix`. */
export function base64Lines(random: () => number, lines: number, width: number, prefix = ''): string[] {
  return Array.from({ length: lines }, (_, i) => (i === 0 ? prefix + drawn(random, BASE64, width - prefix.length) : drawn(random, BASE64, width)));
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
const DIGITS = '0123456789';
const URLSAFE = `${ALNUM}_-`;

/** One planted secret: the text it sits in (a line or a few, as a file would hold them) and the value that must never be sent. */
export interface PlantedSecret {
  format: string;
  text: string;
  secret: string;
}

/** One look-alike: text that only looks like a secret, and the value that must reach the model intact. */
export interface LookAlike {
  shape: string;
  text: string;
  value: string;
}

type SecretFormat = (random: () => number) => { text: string; secret: string };

function pem(random: () => number, label: string, lines: number, width: number, prefix: string): string {
  return [`-----BEGIN ${label}-----`, ...base64Lines(random, lines, width, prefix), `-----END ${label}-----`].join('\n');
}

/** Every shape of credential the corpus plants, by format name; the value is what must not be sent. */
const SECRET_FORMATS: Record<string, SecretFormat> = {
  'aws access key id': (r) => ((s) => ({ text: `aws_access_key_id = ${s}`, secret: s }))(`AKIA${drawn(r, UPPER_ALNUM, 16)}`),
  'aws secret access key': (r) => ((s) => ({ text: `aws_secret_access_key = ${s}`, secret: s }))(drawn(r, `${ALNUM}/+`, 40)),
  'github classic token': (r) => ((s) => ({ text: `GITHUB_TOKEN=${s}`, secret: s }))(`ghp_${drawn(r, ALNUM, 36)}`),
  'github fine-grained token': (r) => ((s) => ({ text: `const pat = "${s}";`, secret: s }))(`github_pat_${drawn(r, ALNUM, 22)}_${drawn(r, ALNUM, 59)}`),
  'github oauth token': (r) => ((s) => ({ text: `headers: { authorization: 'token ${s}' }`, secret: s }))(`gho_${drawn(r, ALNUM, 36)}`),
  'github app token': (r) => ((s) => ({ text: `installationToken: "${s}",`, secret: s }))(`ghs_${drawn(r, ALNUM, 36)}`),
  'gitlab token': (r) => ((s) => ({ text: `CI_JOB_TOKEN: ${s}`, secret: s }))(`glpat-${drawn(r, URLSAFE, 20)}`),
  'slack bot token': (r) => ((s) => ({ text: `const slack = new WebClient('${s}');`, secret: s }))(`xoxb-${drawn(r, DIGITS, 12)}-${drawn(r, DIGITS, 13)}-${drawn(r, ALNUM, 24)}`),
  'slack user token': (r) => ((s) => ({ text: `SLACK_USER_TOKEN="${s}"`, secret: s }))(`xoxp-${drawn(r, DIGITS, 12)}-${drawn(r, DIGITS, 12)}-${drawn(r, DIGITS, 13)}-${drawn(r, HEX, 32)}`),
  'slack webhook': (r) => ((s) => ({ text: `await fetch("${s}", { method: "POST" });`, secret: s }))(`https://hooks.slack.com/services/T${drawn(r, UPPER_ALNUM, 8)}/B${drawn(r, UPPER_ALNUM, 10)}/${drawn(r, ALNUM, 24)}`),
  'stripe secret key': (r) => ((s) => ({ text: `const stripe = new Stripe('${s}');`, secret: s }))(`sk_live_${drawn(r, ALNUM, 99)}`),
  'stripe restricted key': (r) => ((s) => ({ text: `STRIPE_RESTRICTED=${s}`, secret: s }))(`rk_live_${drawn(r, ALNUM, 24)}`),
  'stripe webhook secret': (r) => ((s) => ({ text: `endpointSecret: '${s}',`, secret: s }))(`whsec_${drawn(r, ALNUM, 32)}`),
  'openai legacy key': (r) => ((s) => ({ text: `openai.api_key = "${s}"`, secret: s }))(`sk-${drawn(r, ALNUM, 48)}`),
  'openai project key': (r) => ((s) => ({ text: `OPENAI_API_KEY=${s}`, secret: s }))(`sk-proj-${drawn(r, URLSAFE, 64)}`),
  'anthropic key': (r) => ((s) => ({ text: `const client = new Anthropic({ apiKey: '${s}' });`, secret: s }))(`sk-ant-api03-${drawn(r, URLSAFE, 93)}AA`),
  'google api key': (r) => ((s) => ({ text: `<script src="https://maps.googleapis.com/maps/api/js?key=${s}"></script>`, secret: s }))(`AIza${drawn(r, URLSAFE, 35)}`),
  'google oauth client secret': (r) => ((s) => ({ text: `"client_secret": "${s}",`, secret: s }))(`GOCSPX-${drawn(r, URLSAFE, 28)}`),
  'google refresh token': (r) => ((s) => ({ text: `refresh_token: ${s}`, secret: s }))(`1//0${drawn(r, URLSAFE, 60)}`),
  'twilio api key': (r) => ((s) => ({ text: `TWILIO_API_KEY=${s}`, secret: s }))(`SK${drawn(r, HEX, 32)}`),
  'sendgrid key': (r) => ((s) => ({ text: `sgMail.setApiKey('${s}');`, secret: s }))(`SG.${drawn(r, URLSAFE, 22)}.${drawn(r, URLSAFE, 43)}`),
  'npm token': (r) => ((s) => ({ text: `//registry.npmjs.org/:_authToken=${s}`, secret: s }))(`npm_${drawn(r, ALNUM, 36)}`),
  'pypi token': (r) => ((s) => ({ text: `password = ${s}`, secret: s }))(`pypi-AgEIcHlwaS5vcmc${drawn(r, URLSAFE, 70)}`),
  'huggingface token': (r) => ((s) => ({ text: `login(token="${s}")`, secret: s }))(`hf_${drawn(r, ALNUM, 34)}`),
  'shopify access token': (r) => ((s) => ({ text: `'X-Shopify-Access-Token': '${s}',`, secret: s }))(`shpat_${drawn(r, HEX, 32)}`),
  'digitalocean token': (r) => ((s) => ({ text: `DIGITALOCEAN_ACCESS_TOKEN=${s}`, secret: s }))(`dop_v1_${drawn(r, HEX, 64)}`),
  'mailgun key': (r) => ((s) => ({ text: `const mg = mailgun.client({ username: 'api', key: '${s}' });`, secret: s }))(`key-${drawn(r, HEX, 32)}`),
  'databricks token': (r) => ((s) => ({ text: `DATABRICKS_TOKEN=${s}`, secret: s }))(`dapi${drawn(r, HEX, 32)}`),
  'square token': (r) => ((s) => ({ text: `accessToken: '${s}',`, secret: s }))(`sq0atp-${drawn(r, URLSAFE, 22)}`),
  'telegram token in a url': (r) => ((s) => ({ text: `await fetch(\`https://api.telegram.org/bot${s}/sendMessage?chat_id=42\`);`, secret: s }))(`${drawn(r, DIGITS, 10)}:AA${drawn(r, URLSAFE, 33)}`),
  'telegram token': (r) => ((s) => ({ text: `bot = Bot("${s}")`, secret: s }))(`${drawn(r, DIGITS, 9)}:AA${drawn(r, URLSAFE, 33)}`),
  'discord webhook': (r) => ((s) => ({ text: `DISCORD_WEBHOOK=${s}`, secret: s }))(`https://discord.com/api/webhooks/${drawn(r, DIGITS, 18)}/${drawn(r, URLSAFE, 68)}`),
  'new relic key': (r) => ((s) => ({ text: `newrelic.license = "${s}"`, secret: s }))(`NRAK-${drawn(r, UPPER_ALNUM, 27)}`),
  'sentry token': (r) => ((s) => ({ text: `SENTRY_AUTH_TOKEN=${s}`, secret: s }))(`sntrys_${drawn(r, ALNUM, 64)}`),
  'linear key': (r) => ((s) => ({ text: `const linear = new LinearClient({ apiKey: "${s}" });`, secret: s }))(`lin_api_${drawn(r, ALNUM, 40)}`),
  'notion token': (r) => ((s) => ({ text: `auth: '${s}',`, secret: s }))(`ntn_${drawn(r, ALNUM, 46)}`),
  'vault token': (r) => ((s) => ({ text: `export VAULT_TOKEN=${s}`, secret: s }))(`hvs.${drawn(r, URLSAFE, 90)}`),
  'postman key': (r) => ((s) => ({ text: `x-api-key: ${s}`, secret: s }))(`PMAK-${drawn(r, HEX, 24)}-${drawn(r, HEX, 34)}`),
  'grafana service account token': (r) => ((s) => ({ text: `GRAFANA_TOKEN="${s}"`, secret: s }))(`glsa_${drawn(r, ALNUM, 32)}_${drawn(r, HEX, 8)}`),
  'atlassian token': (r) => ((s) => ({ text: `jira: { email: 'ops@example.com', token: '${s}' }`, secret: s }))(`ATATT3${drawn(r, URLSAFE, 180)}`),
  'doppler token': (r) => ((s) => ({ text: `DOPPLER_TOKEN=${s}`, secret: s }))(`dp.pt.${drawn(r, ALNUM, 43)}`),
  'age secret key': (r) => ((s) => ({ text: `# created: 2024-01-01\n${s}`, secret: s }))(`AGE-SECRET-KEY-1${drawn(r, UPPER_ALNUM, 58)}`),
  jwt: (r) => ((s) => ({ text: `const serviceJwt = '${s}';`, secret: s }))(`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${drawn(r, URLSAFE, 60)}.${drawn(r, URLSAFE, 43)}`),
  'rsa private key': (r) => ((k) => ({ text: `const key = \`${k}\`;`, secret: k.split('\n')[5] as string }))(pem(r, 'RSA PRIVATE KEY', 25, 64, 'MIIEpAIBAAKCAQEA')),
  'ec private key': (r) => ((k) => ({ text: k, secret: k.split('\n')[2] as string }))(pem(r, 'EC PRIVATE KEY', 3, 64, 'MHcCAQEEI')),
  'openssh private key': (r) => ((k) => ({ text: k, secret: k.split('\n')[7] as string }))(pem(r, 'OPENSSH PRIVATE KEY', 25, 70, 'b3BlbnNzaC1rZXktdjEAAAAA')),
  'pgp private key block': (r) => ((body) => ({ text: ['-----BEGIN PGP PRIVATE KEY BLOCK-----', '', ...body, `=${drawn(r, ALNUM, 4)}`, '-----END PGP PRIVATE KEY BLOCK-----'].join('\n'), secret: body[9] as string }))(base64Lines(r, 25, 64, 'lQOYBF')),
  'pkcs8 private key': (r) => ((k) => ({ text: `SIGNING_KEY="${k}"`, secret: k.split('\n')[3] as string }))(pem(r, 'PRIVATE KEY', 16, 64, 'MIIEvQIBADANBgkqhkiG9w0BAQEF')),
  'encrypted private key': (r) => ((k) => ({ text: k, secret: k.split('\n')[4] as string }))(pem(r, 'ENCRYPTED PRIVATE KEY', 12, 64, 'MIIFHDBOBgkqhkiG9w0BBQ0w')),
  'private key in a one-line json string': (r) => ((body) => ({ text: `{"type": "service_account", "project_id": "billing-prod", "private_key": "-----BEGIN PRIVATE KEY-----\\n${body.join('\\n')}\\n-----END PRIVATE KEY-----\\n", "client_email": "ci@billing-prod.iam.gserviceaccount.com"}`, secret: body[6] as string }))(base64Lines(r, 16, 64, 'MIIEvgIBADANBgkqhkiG9w0BAQEF')),
  'postgres url password': (r) => ((s) => ({ text: `DATABASE_URL=postgres://app:${s}@db.internal:5432/billing`, secret: s }))(drawn(r, ALNUM, 18)),
  'mysql url password': (r) => ((s) => ({ text: `const db = mysql.createPool('mysql://root:${s}@127.0.0.1:3306/shop');`, secret: s }))(drawn(r, ALNUM, 14)),
  'mongodb srv url password': (r) => ((s) => ({ text: `MONGO_URI: "mongodb+srv://svc:${s}@cluster0.abcde.mongodb.net/app?retryWrites=true"`, secret: s }))(drawn(r, ALNUM, 20)),
  'redis url password': (r) => ((s) => ({ text: `redis: { url: 'redis://:${s}@cache.internal:6379/0' }`, secret: s }))(drawn(r, ALNUM, 24)),
  'amqp url password': (r) => ((s) => ({ text: `amqp.connect("amqp://worker:${s}@mq.internal:5672/jobs")`, secret: s }))(drawn(r, ALNUM, 16)),
  'ado.net connection string': (r) => ((s) => ({ text: `"Default": "Server=sql.internal;Database=Billing;User Id=billing;Password=${s};Encrypt=true;"`, secret: s }))(drawn(r, ALNUM, 16)),
  'jdbc url password parameter': (r) => ((s) => ({ text: `spring.datasource.url=jdbc:mysql://db:3306/app?user=app&password=${s}&useSSL=true`, secret: s }))(drawn(r, ALNUM, 15)),
  'dotenv password': (r) => ((s) => ({ text: `DB_PASSWORD=${s}`, secret: s }))(`${drawn(r, ALNUM, 10)}!${drawn(r, DIGITS, 3)}`),
  'yaml password': (r) => ((s) => ({ text: `database:\n  user: billing\n  password: ${s}`, secret: s }))(`${drawn(r, ALNUM, 12)}#${drawn(r, DIGITS, 2)}`),
  'properties password': (r) => ((s) => ({ text: `spring.datasource.password=${s}`, secret: s }))(drawn(r, ALNUM, 16)),
  'xml password element': (r) => ((s) => ({ text: `<datasource>\n  <username>app</username>\n  <password>${s}</password>\n</datasource>`, secret: s }))(drawn(r, ALNUM, 14)),
  'json api key': (r) => ((s) => ({ text: `{ "api_key": "${s}", "region": "eu-west-1" }`, secret: s }))(drawn(r, ALNUM, 32)),
  'code high-entropy literal': (r) => ((s) => ({ text: `const signingSalt = '${s}';`, secret: s }))(drawn(r, ALNUM, 40)),
  'class field client secret': (r) => ((s) => ({ text: `private readonly clientSecret = "${s}";`, secret: s }))(drawn(r, URLSAFE, 32)),
  'curl basic credentials': (r) => ((s) => ({ text: `curl -u deploy:${s} https://ci.example.com/api/build`, secret: s }))(drawn(r, ALNUM, 18)),
  'docker login password': (r) => ((s) => ({ text: `docker login -u ci -p ${s} registry.example.com`, secret: s }))(drawn(r, ALNUM, 20)),
  'bearer header': (r) => ((s) => ({ text: `Authorization: Bearer ${s}`, secret: s }))(drawn(r, ALNUM, 40)),
  'basic auth header': (r) => ((s) => ({ text: `headers.set('Authorization', 'Basic ${Buffer.from(`deploy:${s}`).toString('base64')}');`, secret: Buffer.from(`deploy:${s}`).toString('base64') }))(drawn(r, ALNUM, 14)),
  'azure storage account key': (r) => ((s) => ({ text: `DefaultEndpointsProtocol=https;AccountName=billing;AccountKey=${s};EndpointSuffix=core.windows.net`, secret: s }))(`${drawn(r, `${ALNUM}+/`, 86)}==`),
  'azure sas signature': (r) => ((s) => ({ text: `https://billing.blob.core.windows.net/invoices?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01&sig=${s}`, secret: s }))(drawn(r, ALNUM, 44)),
  'kubernetes env value': (r) => ((s) => ({ text: `env:\n  - name: STRIPE_SECRET\n    value: ${s}`, secret: s }))(drawn(r, ALNUM, 30)),
  'password in a prose comment': (r) => ((s) => ({ text: `// staging db: user=qa password=${s} (rotate monthly)`, secret: s }))(`${drawn(r, ALNUM, 9)}-${drawn(r, DIGITS, 2)}`),
  'token in a hash comment': (r) => ((s) => ({ text: `# for the nightly job: host=ci.internal token=${s}`, secret: s }))(drawn(r, ALNUM, 26)),
  'concatenated stripe key': (r) => ((s) => ({ text: `const key = 'sk_live_' + '${s}';`, secret: s }))(drawn(r, ALNUM, 40)),
  'concatenated password': (r) => ((a, b) => ({ text: `const dbPassword = '${a}' +\n  '${b}';`, secret: `${a}${b}` }))(drawn(r, ALNUM, 7), `${drawn(r, ALNUM, 6)}!`),
  'joined github token': (r) => ((a, b) => ({ text: `const token = ['ghp_${a}', '${b}'].join('');`, secret: `ghp_${a}${b}` }))(drawn(r, ALNUM, 18), drawn(r, ALNUM, 18)),
  'cli password flag': (r) => ((s) => ({ text: `pg_dump --password=${s} --host=db.internal billing > dump.sql`, secret: s }))(drawn(r, ALNUM, 18)),
  'jwt signing secret argument': (r) => ((s) => ({ text: `const token = jwt.sign(payload, '${s}', { expiresIn: '1h' });`, secret: s }))(drawn(r, ALNUM, 24)),
  'api key query parameter': (r) => ((s) => ({ text: `GET https://api.weather.example/v1/forecast?city=Oslo&api_key=${s}`, secret: s }))(drawn(r, HEX, 32)),
  'django secret key': (r) => ((s) => ({ text: `SECRET_KEY = "${s}"`, secret: s }))(`django-insecure-${drawn(r, `${ALNUM}!@#%^&*(-_=+)`, 50)}`),
  'toml token': (r) => ((s) => ({ text: `[registries.internal]\ntoken = "${s}"`, secret: s }))(drawn(r, ALNUM, 32)),
  'ini password': (r) => ((s) => ({ text: `[database]\nhost = db.internal\npassword = ${s}`, secret: s }))(drawn(r, ALNUM, 16)),
};

/** The secret corpus: `count` secrets cycling through every format (values drawn afresh each time). */
export function plantedSecrets(seed: number, count: number): PlantedSecret[] {
  const random = seeded(seed);
  const formats = Object.entries(SECRET_FORMATS);
  return Array.from({ length: count }, (_, i) => {
    const [format, make] = formats[i % formats.length] as [string, SecretFormat];
    return { format, ...make(random) };
  });
}

/** How many formats the corpus draws from. */
export const SECRET_FORMAT_COUNT = Object.keys(SECRET_FORMATS).length;

type LookAlikeShape = (random: () => number) => { text: string; value: string };

const base64Of = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');
const uuid = (r: () => number): string => `${drawn(r, HEX, 8)}-${drawn(r, HEX, 4)}-4${drawn(r, HEX, 3)}-a${drawn(r, HEX, 3)}-${drawn(r, HEX, 12)}`;

/** Text that only looks like a secret, by shape; the value must reach the model as it is. */
const LOOK_ALIKES: Record<string, LookAlikeShape> = {
  'sha-1 checksum': (r) => ((v) => ({ text: `const checksum = '${v}';`, value: v }))(drawn(r, HEX, 40)),
  'sha-256 checksum': (r) => ((v) => ({ text: `expect(sha256(file)).toBe("${v}");`, value: v }))(drawn(r, HEX, 64)),
  'md5 etag': (r) => ((v) => ({ text: `etag: "${v}",`, value: v }))(drawn(r, HEX, 32)),
  'git commit in prose': (r) => ((v) => ({ text: `// Fixed in ${v}; see the changelog.`, value: v }))(drawn(r, HEX, 40)),
  'uuid id': (r) => ((v) => ({ text: `const tenantId = '${v}';`, value: v }))(uuid(r)),
  'uuid in json': (r) => ((v) => ({ text: `{ "requestId": "${v}" }`, value: v }))(uuid(r)),
  'base64 json cookie': (r) => ((v) => ({ text: `document.cookie = 'prefs=${v}';`, value: v }))(base64Of({ theme: drawn(r, 'abcdefgh', 6), lang: 'en', size: Math.floor(r() * 30) })),
  'base64 json state': (r) => ((v) => ({ text: `const state = "${v}";`, value: v }))(base64Of({ returnTo: `/invoices/${drawn(r, DIGITS, 6)}`, nonce: drawn(r, DIGITS, 6) })),
  'version string': (r) => ((v) => ({ text: `"version": "${v}",`, value: v }))(`${Math.floor(r() * 20)}.${Math.floor(r() * 40)}.${Math.floor(r() * 99)}`),
  'semver prerelease with build': (r) => ((v) => ({ text: `const RELEASE = 'v${v}';`, value: v }))(`${Math.floor(r() * 9)}.${Math.floor(r() * 9)}.${Math.floor(r() * 9)}-beta.${Math.floor(r() * 9)}+build.${drawn(r, DIGITS, 4)}`),
  'subresource integrity': (r) => ((v) => ({ text: `integrity="${v}"`, value: v }))(`sha512-${drawn(r, `${ALNUM}+/`, 86)}==`),
  'docker digest': (r) => ((v) => ({ text: `image: node@${v}`, value: v }))(`sha256:${drawn(r, HEX, 64)}`),
  'png data uri': (r) => ((v) => ({ text: `const pixel = "data:image/png;base64,${v}";`, value: v }))(`iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42m${drawn(r, ALNUM, 20)}`),
  'css colour': (r) => ((v) => ({ text: `color: #${v};`, value: v }))(drawn(r, HEX, 6)),
  'i18n key': (r) => ((v) => ({ text: `t('${v}')`, value: v }))(`settings.${drawn(r, 'abcdefghij', 6)}.passwordLabel`),
  'long identifier': (r) => ((v) => ({ text: `export function ${v}(): void {}`, value: v }))(`getUserProfileByIdAndTenant${drawn(r, DIGITS, 2)}`),
  'file path': (r) => ((v) => ({ text: `import { PasswordInput } from '${v}';`, value: v }))(`./components/${drawn(r, 'abcdefgh', 5)}/PasswordInput`),
  'url without credentials': (r) => ((v) => ({ text: `const endpoint = "${v}";`, value: v }))(`https://api.example.com/v2/users/${drawn(r, DIGITS, 6)}?page=${Math.floor(r() * 9)}`),
  'password type annotation': (r) => ((v) => ({ text: `interface Login${v} { user: string; password: string }`, value: `Login${v}` }))(drawn(r, 'ABCDEFGH', 3)),
  'environment lookup': (r) => ((v) => ({ text: `const key = process.env.${v};`, value: v }))(`STRIPE_SECRET_KEY_${drawn(r, 'ABCDEF', 3)}`),
  'placeholder token': (r) => ((v) => ({ text: `const apiKey = '${v}';`, value: v }))(`<your-api-key-${drawn(r, 'abc', 2)}>`),
  'template placeholder': (r) => ((v) => ({ text: `password: "${v}"`, value: v }))(`{{ .Values.db${drawn(r, 'ABC', 2)}.password }}`),
  'stripe publishable key': (r) => ((v) => ({ text: `loadStripe('${v}');`, value: v }))(`pk_test_${drawn(r, ALNUM, 40)}`),
  'stripe customer id': (r) => ((v) => ({ text: `customer: '${v}',`, value: v }))(`cus_${drawn(r, ALNUM, 14)}`),
  timestamp: (r) => ((v) => ({ text: `createdAt: '${v}',`, value: v }))(`20${10 + Math.floor(r() * 15)}-0${1 + Math.floor(r() * 8)}-1${Math.floor(r() * 9)}T10:${10 + Math.floor(r() * 49)}:00.000Z`),
  'ipv6 address': (r) => ((v) => ({ text: `listen [${v}]:443;`, value: v }))(`2001:0db8:${drawn(r, HEX, 4)}:0000:0000:8a2e:${drawn(r, HEX, 4)}:7334`),
  'mac address': (r) => ((v) => ({ text: `hwaddr ${v}`, value: v }))(Array.from({ length: 6 }, () => drawn(r, '0123456789ABCDEF', 2)).join(':')),
  'dependency range': (r) => ((v) => ({ text: `"lodash": "${v}",`, value: v }))(`^4.17.${Math.floor(r() * 30)}`),
  'prose about passwords': (r) => ((v) => ({ text: `// The password must be at least ${v} characters long.`, value: `${v} characters` }))(String(8 + Math.floor(r() * 8))),
  'password length constant': (r) => ((v) => ({ text: `const PASSWORD_MIN_LENGTH = ${v};`, value: `PASSWORD_MIN_LENGTH = ${v}` }))(String(8 + Math.floor(r() * 8))),
  'token type': (r) => ((v) => ({ text: `const tokenType = '${v}';`, value: v }))(['Bearer', 'MAC', 'DPoP'][Math.floor(r() * 3)] as string),
  'cache key template': (r) => ((v) => ({ text: `const cacheKey = 'user:' + id + ':${v}';`, value: v }))(drawn(r, 'abcdefgh', 7)),
  'docker image tag': (r) => ((v) => ({ text: `FROM ${v}`, value: v }))(`node:20.${Math.floor(r() * 12)}.1-alpine3.${Math.floor(r() * 20)}`),
  'secret name path': (r) => ((v) => ({ text: `const secretName = '${v}';`, value: v }))(`prod/${drawn(r, 'abcdef', 4)}/db/password`),
  'number literal': (r) => ((v) => ({ text: `const MAX_RETRIES_BEFORE_ALERT = ${v};`, value: v }))(drawn(r, DIGITS, 12)),
  'sentence with key word': (r) => ((v) => ({ text: `// token: refresh it when the ${v} job fails`, value: `the ${v} job` }))(drawn(r, 'abcdefgh', 6)),
};

/** The look-alikes: `count` of them cycling through every shape. */
export function lookAlikes(seed: number, count: number): LookAlike[] {
  const random = seeded(seed);
  const shapes = Object.entries(LOOK_ALIKES);
  return Array.from({ length: count }, (_, i) => {
    const [shape, make] = shapes[i % shapes.length] as [string, LookAlikeShape];
    return { shape, ...make(random) };
  });
}
