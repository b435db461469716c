/** Registered HTTP units as fuzz targets: booted in process on a fresh data dir, with credentials. */
import { bootForTest } from '../../test/harness.ts'
import { httpUnits, registeredUnit } from '../../units/registry.ts'
import { credentialsFor } from '../fuzz-credentials.ts'
import { type FuzzTarget, REPO_ROOT } from './fuzzer.ts'

export async function openUnitTarget(name: string): Promise<FuzzTarget> {
  const entry = registeredUnit(name)
  if (!entry) throw new Error(`unknown unit '${name}' (registered: ${Object.keys(httpUnits).join(', ')})`)
  const unit = await entry.load()
  const setup = await credentialsFor(name)
  let booted: ReturnType<typeof bootForTest>
  try {
    booted = bootForTest(unit, setup.env)
  } catch (err) {
    setup.stop()
    throw err
  }
  return {
    unit: name,
    liveness: unit.liveness,
    openapiPath: unit.openapiPath ?? '/openapi.json',
    maxBodyBytes: booted.ctx.config.SVC_MAX_BODY_BYTES,
    credentials: { headers: setup.headers, body: setup.body, sign: setup.sign },
    internalPaths: [REPO_ROOT, booted.dataDir],
    handle: (req) => booted.app.handle(req),
    async close() {
      await booted.dispose()
      setup.stop()
    },
  }
}
