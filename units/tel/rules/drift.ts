/**
 * Drift: what TEL's files declare against what a snapshot saw live, or one snapshot against
 * another. Facts are normalized (sorted) so only real changes count.
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Fact, Observation } from '../../../common/cli.ts'
import type { FeaturesFile, ManifestFile, StackFile } from '../model.ts'
import { PrsMatrix, PrsProfiles, PrsSlices, PrsVoiceContracts, type SnapshotFile } from '../model.ts'

const sorted = (xs: readonly string[]) => [...xs].sort()

interface Declared {
  stack: StackFile
  manifest: ManifestFile
  features: FeaturesFile
}

/** The facts the repository's files declare about the live suite. */
export function declaredFacts(files: Declared): Record<string, Fact> {
  return {
    produced_families: { value: sorted(files.manifest.producer_families) },
    consumed_families: { value: sorted(files.manifest.consumer_families) },
    optional_slices: {
      value: Object.fromEntries(
        files.features.features
          .filter((f) => f.slice_key !== null)
          .map((f) => [f.slice_key, { default_enabled: f.default_enabled, families: sorted(f.families) }]),
      ),
    },
    voice_events: {
      value: Object.fromEntries(files.stack.events.map((e) => [e.name, sorted(e.payload_fields)])),
    },
    combination_profile: {
      value: {
        profile_key: files.stack.combination_profile.profile_key,
        invariants: sorted(files.stack.combination_profile.invariants),
      },
    },
  }
}

function fromBody<T>(o: Observation | undefined, schema: TSchema, read: (b: T) => unknown): Fact {
  if (!o) return { unknown: 'surface not in the snapshot' }
  if (!o.ok)
    return { unknown: `${o.url ?? 'surface'} had no answer when the snapshot was taken: ${o.message}` }
  if (!Value.Check(schema, o.body))
    return { unknown: `${o.url} answered off its contract when the snapshot was taken` }
  return { value: read(o.body as T) }
}

/** The same facts, as the live surfaces in a snapshot show them. */
export function observedFacts(snapshot: SnapshotFile): Record<string, Fact> {
  const s = snapshot.surfaces
  const matrix = s['prs:/api/v1/contracts/matrix']
  const profileKey =
    (snapshot.files.stack as StackFile | undefined)?.combination_profile?.profile_key ?? 'voice_stack'
  return {
    produced_families: fromBody<Static<typeof PrsMatrix>>(matrix, PrsMatrix, (m) =>
      sorted(m.cells.filter((c) => c.producers.includes('tel')).map((c) => c.family)),
    ),
    consumed_families: fromBody<Static<typeof PrsMatrix>>(matrix, PrsMatrix, (m) =>
      sorted([
        ...m.cells.filter((c) => c.consumers.some((x) => x.unit === 'tel')).map((c) => c.family),
        ...m.external_families.filter((e) => e.consumers.includes('tel')).map((e) => e.family),
      ]),
    ),
    optional_slices: fromBody<Static<typeof PrsSlices>>(
      s['prs:/api/v1/combinations/optional-slices'],
      PrsSlices,
      (v) =>
        Object.fromEntries(
          v.slices
            .filter((x) => x.unit === 'tel')
            .map((x) => [x.slice_key, { default_enabled: x.default_enabled, families: sorted(x.families) }]),
        ),
    ),
    voice_events: fromBody<Static<typeof PrsVoiceContracts>>(
      s['prs:/api/v1/voice/contracts/events'],
      PrsVoiceContracts,
      (v) =>
        Object.fromEntries(
          v.events.filter((e) => e.unit === 'tel').map((e) => [e.name, sorted(e.payload_fields)]),
        ),
    ),
    combination_profile: fromBody<Static<typeof PrsProfiles>>(
      s['prs:/api/v1/combinations/profiles'],
      PrsProfiles,
      (v) => {
        const p = v.profiles.find((x) => x.profile_key === profileKey)
        return p ? { profile_key: p.profile_key, invariants: sorted(p.invariants) } : null
      },
    ),
  }
}

/** Live state that only two snapshots can compare: liveness and info route answers, matrix version. */
export function liveFacts(snapshot: SnapshotFile): Record<string, Fact> {
  const status = (key: string): Fact => {
    const o = snapshot.surfaces[key]
    if (!o) return { unknown: 'surface not in the snapshot' }
    return { value: o.ok ? o.status : `no answer (${o.failure})` }
  }
  const matrix = snapshot.surfaces['prs:/api/v1/contracts/matrix']
  return {
    runtime_host: status('runtime_host:/healthz'),
    telephony_info: status('telephony:info(no credentials)'),
    telephony_info_authenticated: status('telephony:info'),
    contract_version: fromBody<{ version: string }>(matrix, PrsMatrix, (m) => m.version),
  }
}

/** The files a snapshot recorded, as facts (each file whole). */
export function fileFacts(files: Record<string, unknown>): Record<string, Fact> {
  return Object.fromEntries(
    Object.entries(files).map(([k, v]) => [
      `files.${k}`,
      v === undefined ? { unknown: 'not recorded' } : { value: v },
    ]),
  )
}
