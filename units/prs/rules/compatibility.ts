/**
 * Compatibility checks modelled on Confluent Schema Registry's modes. A family's `fields` are its
 * schema; a unit's contract is checked family by family plus the few things consumers rely on
 * outside any schema (static ports, the liveness route, events).
 *
 * BACKWARD: a reader on the new schema can read data written with the old one.
 * FORWARD: a reader on the old schema can read data written with the new one.
 * FULL: both. *_TRANSITIVE: against every registered version, not only the latest. NONE: no check.
 */
import type {
  CompatibilityMode,
  FieldSpec,
  FieldType,
  ProducedFamily,
  UnitContract,
} from '../../../common/contract.ts'

export type Direction = 'backward' | 'forward' | 'any'

export interface Incompatibility {
  type: string
  location: string
  message: string
  /** Version of the registered contract this finding is against. */
  against_version: string
  direction: Direction
}

export interface RegisteredVersion<D> {
  version: string
  document: D
}

export const directionsOf = (mode: CompatibilityMode): Direction[] => {
  if (mode === 'NONE') return []
  if (mode.startsWith('BACKWARD')) return ['backward']
  if (mode.startsWith('FORWARD')) return ['forward']
  return ['backward', 'forward']
}

export const isTransitive = (mode: CompatibilityMode) => mode.endsWith('_TRANSITIVE')

const typesOf = (f: FieldSpec): FieldType[] => (Array.isArray(f.type) ? f.type : [f.type])

/** A reader type accepts a writer type when equal or a safe widening. */
function accepts(reader: FieldType, writer: FieldType): boolean {
  if (reader === writer) return true
  if (reader === 'number' && writer === 'integer') return true
  if (reader === 'string' && writer === 'timestamp') return true
  return false
}

/** Can a reader with schema `reader` read data written with schema `writer`? */
export function readerProblems(
  reader: Record<string, FieldSpec>,
  writer: Record<string, FieldSpec>,
  where: string,
): { type: string; location: string; message: string }[] {
  const out: { type: string; location: string; message: string }[] = []
  for (const [name, r] of Object.entries(reader)) {
    const w = writer[name]
    const location = `${where}/fields/${name}`
    if (!w) {
      if (r.required) {
        out.push({
          type: 'READER_FIELD_MISSING_IN_WRITER',
          location,
          message: `the reader requires field '${name}', which the writer's schema does not have`,
        })
      }
      continue
    }
    if (r.required && !w.required) {
      out.push({
        type: 'REQUIRED_FIELD_MAY_BE_ABSENT',
        location,
        message: `the reader requires field '${name}', which the writer marks optional`,
      })
    }
    const rt = typesOf(r)
    const missing = typesOf(w).filter((wt) => !rt.some((x) => accepts(x, wt)))
    if (missing.length > 0) {
      out.push({
        type: 'TYPE_MISMATCH',
        location,
        message: `field '${name}': the writer may produce ${missing.join(', ')}, the reader accepts only ${rt.join(', ')}`,
      })
    }
  }
  return out
}

/** Findings of one direction between an old and a new family schema. */
function familyFindings(
  oldF: Pick<ProducedFamily, 'fields'>,
  newF: Pick<ProducedFamily, 'fields'>,
  direction: 'backward' | 'forward',
  where: string,
  against: string,
): Incompatibility[] {
  const [reader, writer] = direction === 'backward' ? [newF.fields, oldF.fields] : [oldF.fields, newF.fields]
  return readerProblems(reader, writer, where).map((p) => ({
    ...p,
    against_version: against,
    direction,
    message: `${direction === 'backward' ? 'new reader, old data' : 'old reader, new data'}: ${p.message}`,
  }))
}

export function checkFamily(
  proposed: Pick<ProducedFamily, 'fields' | 'version'>,
  registered: RegisteredVersion<Pick<ProducedFamily, 'fields'>>[],
  mode: CompatibilityMode,
  where = '',
): Incompatibility[] {
  const against = isTransitive(mode) ? registered : registered.slice(-1)
  const out: Incompatibility[] = []
  for (const r of against) {
    for (const d of directionsOf(mode)) {
      if (d === 'any') continue
      out.push(...familyFindings(r.document, proposed, d, where, r.version))
    }
  }
  return out
}

/** Which suite consumers require a family, so a removal can name who breaks. */
export type RequiredBy = (family: string) => string[]

export function checkUnit(
  proposed: UnitContract,
  registered: RegisteredVersion<UnitContract>[],
  mode: CompatibilityMode,
  requiredBy: RequiredBy,
): Incompatibility[] {
  if (mode === 'NONE') return []
  const directions = directionsOf(mode)
  const against = isTransitive(mode) ? registered : registered.slice(-1)
  const out: Incompatibility[] = []
  for (const r of against) {
    const old = r.document
    const v = r.version
    const newFamilies = new Map(proposed.produces.map((f) => [f.family, f]))
    for (const oldF of old.produces) {
      const where = `/produces/${oldF.family}`
      const newF = newFamilies.get(oldF.family)
      if (!newF) {
        const consumers = requiredBy(oldF.family).filter((u) => u !== proposed.unit)
        // Dropping a family is dropping a field: harmless to new readers, fatal to old readers that need it.
        if (directions.includes('forward') && consumers.length > 0) {
          out.push({
            type: 'FAMILY_REMOVED',
            location: where,
            message: `family ${oldF.family} is no longer produced, but ${consumers.join(', ')} require${consumers.length === 1 ? 's' : ''} it`,
            against_version: v,
            direction: 'forward',
          })
        }
        continue
      }
      for (const d of directions) {
        if (d === 'any') continue
        out.push(...familyFindings(oldF, newF, d, where, v))
      }
    }
    const oldPort = old.ports[0]
    const newPort = proposed.ports[0]
    if (oldPort?.policy === 'static-required' && oldPort.port !== newPort?.port) {
      out.push({
        type: 'STATIC_PORT_CHANGED',
        location: '/ports/0/port',
        message: `port ${oldPort.port} is static-required; the proposal ${newPort ? `moves it to ${newPort.port}` : 'drops it'}`,
        against_version: v,
        direction: 'any',
      })
    }
    if (old.liveness !== null && old.liveness !== proposed.liveness) {
      out.push({
        type: 'LIVENESS_ROUTE_CHANGED',
        location: '/liveness',
        message: `consumers probe ${old.liveness}; the proposal ${proposed.liveness ? `moves it to ${proposed.liveness}` : 'drops it'}`,
        against_version: v,
        direction: 'any',
      })
    }
    const newEvents = new Map(proposed.events.map((e) => [e.name, e]))
    for (const e of old.events) {
      const ne = newEvents.get(e.name)
      const where = `/events/${e.name}`
      if (!ne) {
        if (directions.includes('forward')) {
          out.push({
            type: 'EVENT_REMOVED',
            location: where,
            message: `event ${e.name} is no longer emitted; old consumers still expect it`,
            against_version: v,
            direction: 'forward',
          })
        }
        continue
      }
      // Event payload fields are all required: removing one breaks old readers, adding one new readers.
      if (directions.includes('forward')) {
        for (const f of e.payload_fields.filter((x) => !ne.payload_fields.includes(x))) {
          out.push({
            type: 'EVENT_FIELD_REMOVED',
            location: `${where}/payload_fields/${f}`,
            message: `old reader, new data: event ${e.name} no longer carries '${f}'`,
            against_version: v,
            direction: 'forward',
          })
        }
      }
      if (directions.includes('backward')) {
        for (const f of ne.payload_fields.filter((x) => !e.payload_fields.includes(x))) {
          out.push({
            type: 'EVENT_FIELD_ADDED',
            location: `${where}/payload_fields/${f}`,
            message: `new reader, old data: events already emitted lack the new field '${f}'`,
            against_version: v,
            direction: 'backward',
          })
        }
      }
    }
  }
  return out
}

/** Confluent's verbose strings, one per finding, plus the mode line. */
export function verboseMessages(findings: Incompatibility[], mode: CompatibilityMode): string[] {
  const lines = findings.map(
    (f) =>
      `Incompatibility{type:${f.type}, location:${f.location}, message:${f.message}, oldVersion:${f.against_version}}`,
  )
  if (lines.length > 0) lines.push(`{compatibility: '${mode}'}`)
  return lines
}
