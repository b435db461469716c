/**
 * The seven contract families of `svc tel verify`, judged from observations (no I/O here):
 * what PRS, the runtime host and the telephony info route answered, against TEL's own files.
 */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { type Check, noAnswerReason, noAnswerVerdict, type Observation } from '../../../common/cli.ts'
import type { FieldType } from '../../../common/contract.ts'
import { fileProblems, type TelFiles } from '../files.ts'
import {
  PrsDocsStandard,
  PrsMatrix,
  PrsProfiles,
  PrsSlices,
  PrsVoiceContracts,
  type SurfaceKey,
  type VerifyFamily,
} from '../model.ts'

/** The spec's static-required ports (not negotiable at runtime). */
export const STATIC_PORTS = { telephony_interface: 19088, gui: 19089 } as const
const HTTP_UNAUTHORIZED = 401

export type Surfaces = Record<SurfaceKey, Observation>

export interface VerifyInput {
  /** The program's command names (the manifest must list exactly these). */
  commands: readonly string[]
  surfaces: Surfaces
  files: TelFiles
  /** Whether TEL_TELEPHONY_AUTH is set (an authenticated call was made). */
  telephonyAuth: boolean
}

type Judged = Pick<Check, 'status' | 'reason'> & { details?: unknown }
const pass = (reason: string, details?: unknown): Judged => ({ status: 'passed', reason, details })
const fail = (reason: string, details?: unknown): Judged => ({ status: 'failed', reason, details })
const verdict = (problems: string[], ok: string): Judged =>
  problems.length === 0 ? pass(ok) : fail(problems.join('; '), { problems })

/** Judge a PRS view: no answer or an off-contract body decides; otherwise `judge` does. */
function withBody<S extends TSchema>(
  o: Observation,
  what: string,
  schema: S,
  judge: (body: import('@sinclair/typebox').Static<S>) => Judged,
): Judged {
  if (!o.ok) return { status: noAnswerVerdict(o), reason: noAnswerReason(o, what) }
  if (!Value.Check(schema, o.body)) {
    const first = Value.Errors(schema, o.body).First()
    return fail(`${what} does not match its contract at ${first?.path || '/'}: ${first?.message}`)
  }
  return judge(o.body)
}

const sorted = (xs: readonly string[]) => [...xs].sort()
const sameSet = (a: readonly string[], b: readonly string[]) =>
  JSON.stringify(sorted(a)) === JSON.stringify(sorted(b))

const TYPE_CHECK: Record<FieldType, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: Array.isArray,
  timestamp: (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)),
  null: (v) => v === null,
}

/** The family's required fields (contract.json) present in stack.json with their declared type. */
function stackFields(files: TelFiles, family: string): Judged {
  const declared = files.contract.produces.find((f) => f.family === family)
  if (!declared) return fail(`the contract does not produce ${family}`)
  const stack = files.stack as unknown as Record<string, unknown>
  const problems = Object.entries(declared.fields)
    .filter(([, spec]) => spec.required)
    .flatMap(([name, spec]) => {
      const types = Array.isArray(spec.type) ? spec.type : [spec.type]
      return types.some((t) => TYPE_CHECK[t](stack[name]))
        ? []
        : [`stack.json field ${name} is not ${types.join(' or ')}`]
    })
  return verdict(problems, `stack.json carries ${Object.keys(declared.fields).join(', ')} of ${family}`)
}

function registryFamily(s: Surfaces, files: TelFiles, family: string): Judged {
  const version = files.contract.produces.find((f) => f.family === family)?.version
  return withBody(
    s['prs:/api/v1/voice/contracts/events'],
    'PRS voice event contracts',
    PrsVoiceContracts,
    (v) => {
      const f = v.families.find((x) => x.family === family)
      if (!f) return fail(`PRS lists no voice family ${family}`)
      return verdict(
        [
          ...(f.producers.includes('tel')
            ? []
            : [`PRS names ${f.producers.join(', ') || 'no unit'} as producer, not tel`]),
          ...(f.version === version ? [] : [`PRS has version ${f.version}, the contract ${version}`]),
        ],
        `PRS lists ${family} ${f.version} produced by tel`,
      )
    },
  )
}

function slice(s: Surfaces, files: TelFiles, sliceKey: string, enabled: boolean): Judged {
  const feature = files.features.features.find((f) => f.slice_key === sliceKey)
  return withBody(s['prs:/api/v1/combinations/optional-slices'], 'PRS optional slices', PrsSlices, (v) => {
    const found = v.slices.find((x) => x.slice_key === sliceKey)
    if (!found) return fail(`PRS has no optional slice ${sliceKey}`)
    return verdict(
      [
        ...(found.unit === 'tel' ? [] : [`slice belongs to ${found.unit}`]),
        ...(found.status === 'consistent' ? [] : [`slice status is ${found.status}`]),
        ...(found.default_enabled === enabled
          ? []
          : [`PRS default_enabled ${found.default_enabled}, stack.json enabled ${enabled}`]),
        ...(feature && sameSet(found.families, feature.families)
          ? []
          : [`PRS families [${found.families}] differ from features.json [${feature?.families ?? []}]`]),
      ],
      `slice ${sliceKey} consistent, default ${enabled ? 'on' : 'off'} as in stack.json`,
    )
  })
}

function runtimeHost(s: Surfaces): Judged {
  const o = s['runtime_host:/healthz']
  if (!o.ok) return { status: noAnswerVerdict(o), reason: noAnswerReason(o, 'runtime host GET /healthz') }
  return o.status === 200
    ? pass('runtime host GET /healthz answered 200')
    : fail(`runtime host GET /healthz answered ${o.status}`)
}

/** 401 without credentials proves the protected route exists; 200 without them is a hole. */
function infoRoute(s: Surfaces): Judged {
  const o = s['telephony:info(no credentials)']
  if (!o.ok) return { status: noAnswerVerdict(o), reason: noAnswerReason(o, 'telephony info route') }
  if (o.status === HTTP_UNAUTHORIZED)
    return pass('info route answered 401 without credentials: the protected endpoint exists')
  if (o.status === 200) return fail('info route answered 200 without credentials: it must require auth')
  return fail(`info route answered ${o.status} without credentials (expected 401)`)
}

function infoRouteAuthenticated(s: Surfaces): Judged {
  const o = s['telephony:info']
  if (!o.ok)
    return { status: noAnswerVerdict(o), reason: noAnswerReason(o, 'telephony info route (authenticated)') }
  return o.status === 200
    ? pass('info route answered 200 with the configured credentials')
    : fail(`info route answered ${o.status} with the configured credentials`)
}

function staticPorts(files: TelFiles): Judged {
  const { stack } = files
  const problems = Object.entries(STATIC_PORTS).flatMap(([name, port]) => {
    const p = stack.ports.find((x) => x.name === name)
    if (!p) return [`stack.json has no port ${name}`]
    return [
      ...(p.port === port ? [] : [`${name} is ${p.port}, the spec fixes ${port}`]),
      ...(p.policy === 'static-required' ? [] : [`${name} policy is ${p.policy}, not static-required`]),
    ]
  })
  if (stack.interface_port !== STATIC_PORTS.telephony_interface)
    problems.push(`interface_port is ${stack.interface_port}`)
  if (stack.gui_port !== STATIC_PORTS.gui) problems.push(`gui_port is ${stack.gui_port}`)
  return verdict(problems, '19088 (telephony interface) and 19089 (GUI) static-required')
}

function sttTtsEvents(s: Surfaces, files: TelFiles): Judged {
  const names = [files.stack.stt.event, files.stack.tts.event]
  return eventsAgree(s, files, names)
}

/** The stack's events (all, or the named) published by PRS for tel with the same payload fields. */
function eventsAgree(s: Surfaces, files: TelFiles, only?: string[]): Judged {
  const declared = files.stack.events.filter((e) => !only || only.includes(e.name))
  return withBody(
    s['prs:/api/v1/voice/contracts/events'],
    'PRS voice event contracts',
    PrsVoiceContracts,
    (v) => {
      const published = v.events.filter((e) => e.unit === 'tel' && (!only || only.includes(e.name)))
      const problems = [
        ...declared.flatMap((d) => {
          const p = published.find((e) => e.name === d.name)
          if (!p) return [`PRS does not publish ${d.name}`]
          return sameSet(p.payload_fields, d.payload_fields)
            ? []
            : [`${d.name} payload [${p.payload_fields}] differs from stack.json [${d.payload_fields}]`]
        }),
        ...published
          .filter((p) => !declared.some((d) => d.name === p.name))
          .map((p) => `PRS publishes ${p.name}, stack.json does not`),
      ]
      if (only && declared.length < only.length)
        problems.push('stack.json does not declare every STT/TTS event')
      return verdict(
        problems,
        `${declared.length} event(s) agree with PRS: ${declared.map((e) => e.name).join(', ')}`,
      )
    },
  )
}

function matrixCells(s: Surfaces, files: TelFiles): Judged {
  return withBody(s['prs:/api/v1/contracts/matrix'], 'PRS contract matrix', PrsMatrix, (m) => {
    const problems = files.contract.produces.flatMap((f) => {
      const cell = m.cells.find((c) => c.family === f.family)
      if (!cell) return [`matrix has no cell for ${f.family}`]
      return [
        ...(cell.producers.includes('tel') ? [] : [`${f.family} producers are [${cell.producers}]`]),
        ...(cell.version === f.version ? [] : [`${f.family} is ${cell.version} in PRS, ${f.version} here`]),
      ]
    })
    return verdict(
      problems,
      `${files.contract.produces.length} produced families in the matrix (version ${m.version})`,
    )
  })
}

/** Every PRS view TEL read derives from the same contract version. */
function oneContractVersion(s: Surfaces): Judged {
  const views = (Object.keys(s) as SurfaceKey[]).filter((k) => k.startsWith('prs:'))
  const missing = views.filter((k) => !s[k].ok)
  const first = missing[0]
  if (first) return { status: noAnswerVerdict(s[first]), reason: noAnswerReason(s[first], first) }
  const versions = new Set(views.map((k) => (s[k].body as { contract_version?: unknown }).contract_version))
  return versions.size === 1
    ? pass(`all ${views.length} PRS views derive from ${[...versions][0]}`)
    : fail(`PRS views disagree on contract_version: ${[...versions].join(', ')}`)
}

function profile(s: Surfaces, files: TelFiles): Judged {
  const wanted = files.stack.combination_profile
  return withBody(s['prs:/api/v1/combinations/profiles'], 'PRS combination profiles', PrsProfiles, (v) => {
    const p = v.profiles.find((x) => x.profile_key === wanted.profile_key)
    if (!p) return fail(`PRS has no combination profile ${wanted.profile_key}`)
    return verdict(
      [
        ...(p.required_units.includes('tel') ? [] : [`tel is not a required unit of ${p.profile_key}`]),
        ...(p.status === 'complete' ? [] : [`profile is ${p.status}, missing [${p.missing_families}]`]),
      ],
      `${p.profile_key} complete with tel required (units: ${p.required_units.join(', ')})`,
    )
  })
}

function profileInvariants(s: Surfaces, files: TelFiles): Judged {
  const wanted = files.stack.combination_profile
  return withBody(s['prs:/api/v1/combinations/profiles'], 'PRS combination profiles', PrsProfiles, (v) => {
    const p = v.profiles.find((x) => x.profile_key === wanted.profile_key)
    if (!p) return fail(`PRS has no combination profile ${wanted.profile_key}`)
    const problems = sameSet(p.invariants, wanted.invariants)
      ? []
      : [`PRS invariants [${p.invariants}] differ from stack.json [${wanted.invariants}]`]
    if (p.invariants.includes('static_ports_19088_19089') && staticPorts(files).status !== 'passed')
      problems.push('invariant static_ports_19088_19089 does not hold in stack.json')
    return verdict(problems, `invariants hold: ${p.invariants.join(', ')}`)
  })
}

function consumedAdoption(s: Surfaces, files: TelFiles): Judged {
  return withBody(s['prs:/api/v1/contracts/matrix'], 'PRS contract matrix', PrsMatrix, (m) => {
    const problems = files.contract.consumes.flatMap((c) => {
      if (c.source === 'external') {
        const ext = m.external_families.find((e) => e.family === c.family)
        return ext?.consumers.includes('tel')
          ? []
          : [`matrix does not list tel as consumer of external ${c.family}`]
      }
      const cell = m.cells.find((x) => x.family === c.family)
      if (!cell || cell.producers.length === 0) return [`${c.family} has no producer in the suite`]
      const me = cell.consumers.find((x) => x.unit === 'tel')
      if (!me) return [`matrix does not list tel as consumer of ${c.family}`]
      return me.required === c.required
        ? []
        : [`${c.family}: PRS says required ${me.required}, the contract ${c.required}`]
    })
    return verdict(
      problems,
      `${files.contract.consumes.length} consumed families adopted, each with a producer`,
    )
  })
}

function producedAdoption(s: Surfaces, files: TelFiles): Judged {
  return withBody(s['prs:/api/v1/contracts/matrix'], 'PRS contract matrix', PrsMatrix, (m) => {
    const problems = files.manifest.producer_families.flatMap((f) =>
      m.producer_families.includes(f) ? [] : [`${f} is not among the matrix's producer_families`],
    )
    return verdict(problems, `every family the manifest produces is a matrix producer family`)
  })
}

function filesValid(files: TelFiles): Judged {
  const problems = fileProblems(files)
  return verdict(problems, 'stack.json, manifest.json and features.json match their schemas')
}

function contractPorts(files: TelFiles): Judged {
  const key = (p: { name: string; port: number; policy: string }) => `${p.name}:${p.port}:${p.policy}`
  const stack = files.stack.ports.map(key)
  const contract = files.contract.ports.map(key)
  return sameSet(stack, contract)
    ? pass(`stack.json ports agree with contract.json: ${stack.join(', ')}`)
    : fail(`stack.json ports [${stack}] differ from contract.json [${contract}]`)
}

function manifestAgrees(files: TelFiles, commands: readonly string[]): Judged {
  const { manifest: m, contract: c } = files
  return verdict(
    [
      ...(m.contract_version === c.version
        ? []
        : [`manifest contract_version ${m.contract_version}, contract ${c.version}`]),
      ...(m.tool_key === c.identity.tool_key ? [] : [`manifest tool_key ${m.tool_key}`]),
      ...(sameSet(
        m.producer_families,
        c.produces.map((f) => f.family),
      )
        ? []
        : ['producer_families differ from the contract']),
      ...(sameSet(
        m.consumer_families,
        c.consumes.map((f) => f.family),
      )
        ? []
        : ['consumer_families differ from the contract']),
      ...(sameSet(m.commands, commands)
        ? []
        : [`commands [${m.commands}] differ from the program's [${commands}]`]),
      ...(m.docs_entrypoint === c.docs.entrypoint ? [] : ['docs_entrypoint differs from the contract']),
    ],
    'manifest.json agrees with contract.json and the commands',
  )
}

function featuresAgree(files: TelFiles): Judged {
  const { features, contract } = files
  const produced = contract.produces.map((f) => f.family)
  const covered = features.features.flatMap((f) => f.families)
  const problems = [
    ...covered.filter((f) => !produced.includes(f)).map((f) => `feature family ${f} is not produced`),
    ...produced.filter((f) => !covered.includes(f)).map((f) => `produced family ${f} has no feature`),
    ...contract.optional_slices.flatMap((sl) => {
      const f = features.features.find((x) => x.slice_key === sl.slice_key)
      if (!f) return [`slice ${sl.slice_key} has no feature`]
      return f.default_enabled === sl.default_enabled
        ? []
        : [`${sl.slice_key} default differs from the contract`]
    }),
  ]
  return verdict(problems, `${features.features.length} features cover every produced family and slice`)
}

/** Sections of a markdown document, by the docs standard's heading words. */
export function docSections(
  doc: string,
  sections: readonly { key: string; heading_words: string[] }[],
): string[] {
  const lines = doc.split('\n')
  const headings = lines.filter((l) => /^#{2,6}\s/.test(l)).map((l) => l.toLowerCase())
  const titleThenParagraph =
    /^#\s/.test(lines[0] ?? '') &&
    lines
      .slice(1)
      .find((l) => l.trim() !== '')
      ?.startsWith('#') === false
  return sections
    .filter(
      (s) =>
        headings.some((h) => s.heading_words.some((w) => h.includes(w))) ||
        (s.key === 'tool_profile' && titleThenParagraph),
    )
    .map((s) => s.key)
}

function docsStandard(s: Surfaces, files: TelFiles): Judged {
  return withBody(s['prs:/api/v1/contracts/docs-standard'], 'PRS docs standard', PrsDocsStandard, (v) => {
    const required = v.sections.filter((x) => x.required_by.includes('tel'))
    const found = docSections(files.doc, required)
    const missing = required.map((x) => x.key).filter((k) => !found.includes(k))
    return missing.length === 0
      ? pass(`${files.contract.docs.entrypoint} has every section PRS requires of tel (${found.join(', ')})`)
      : fail(`${files.contract.docs.entrypoint} lacks section(s): ${missing.join(', ')}`, { missing })
  })
}

type Rule = [name: string, judge: (i: VerifyInput) => Judged | null]

const RULES: Record<VerifyFamily, Rule[]> = {
  voice_router_runtime_slice: [
    ['stack_fields', (i) => stackFields(i.files, 'voice.router_runtime_slice')],
    ['registry', (i) => registryFamily(i.surfaces, i.files, 'voice.router_runtime_slice')],
    [
      'optional_slice',
      (i) => slice(i.surfaces, i.files, i.files.stack.router.slice_key, i.files.stack.router.enabled),
    ],
    ['runtime_host', (i) => runtimeHost(i.surfaces)],
  ],
  telephony_adapter_slice: [
    ['stack_fields', (i) => stackFields(i.files, 'voice.telephony_adapter_slice')],
    ['static_ports', (i) => staticPorts(i.files)],
    ['registry', (i) => registryFamily(i.surfaces, i.files, 'voice.telephony_adapter_slice')],
    [
      'optional_slice',
      (i) => slice(i.surfaces, i.files, i.files.stack.telephony.slice_key, i.files.stack.telephony.enabled),
    ],
    ['info_route', (i) => infoRoute(i.surfaces)],
    ['info_route_authenticated', (i) => (i.telephonyAuth ? infoRouteAuthenticated(i.surfaces) : null)],
  ],
  stt_tts_flow_slice: [
    ['stack_fields', (i) => stackFields(i.files, 'voice.stt_tts_flow_slice')],
    ['registry', (i) => registryFamily(i.surfaces, i.files, 'voice.stt_tts_flow_slice')],
    [
      'optional_slice',
      (i) => slice(i.surfaces, i.files, i.files.stack.stt_tts.slice_key, i.files.stack.stt_tts.enabled),
    ],
    ['events', (i) => sttTtsEvents(i.surfaces, i.files)],
  ],
  voice_runtime_validation_matrix: [
    ['matrix_cells', (i) => matrixCells(i.surfaces, i.files)],
    ['voice_events', (i) => eventsAgree(i.surfaces, i.files)],
    ['contract_version', (i) => oneContractVersion(i.surfaces)],
  ],
  combination_profile_consumer: [
    ['profile', (i) => profile(i.surfaces, i.files)],
    ['invariants', (i) => profileInvariants(i.surfaces, i.files)],
  ],
  producer_consumer_adoption: [
    ['consumed', (i) => consumedAdoption(i.surfaces, i.files)],
    ['produced', (i) => producedAdoption(i.surfaces, i.files)],
  ],
  stack_source_of_truth: [
    ['files', (i) => filesValid(i.files)],
    ['contract_ports', (i) => contractPorts(i.files)],
    ['manifest', (i) => manifestAgrees(i.files, i.commands)],
    ['features', (i) => featuresAgree(i.files)],
    ['docs_standard', (i) => docsStandard(i.surfaces, i.files)],
  ],
}

/** Checks that need no peer: TEL's own files against each other, the contract and the spec. */
export function localChecks(files: TelFiles, commands: readonly string[]): Check[] {
  const judged: [string, Judged][] = [
    ['stack_source_of_truth.files', filesValid(files)],
    ['stack_source_of_truth.contract_ports', contractPorts(files)],
    ['stack_source_of_truth.manifest', manifestAgrees(files, commands)],
    ['stack_source_of_truth.features', featuresAgree(files)],
    ['telephony_adapter_slice.static_ports', staticPorts(files)],
  ]
  return judged.map(([name, j]) => ({ name, ...j }))
}

/** The checks of the given families (all seven by default), named `<family>.<check>`. */
export function verifyChecks(input: VerifyInput, families: readonly VerifyFamily[]): Check[] {
  return families.flatMap((family) =>
    RULES[family].flatMap(([name, judge]) => {
      const j = judge(input)
      return j ? [{ name: `${family}.${name}`, ...j }] : []
    }),
  )
}
