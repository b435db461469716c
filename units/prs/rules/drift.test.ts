import { expect, test } from 'bun:test'
import { shippedManifest } from '../../rms/manifest.ts'
import { contractIn, fixtureContracts } from '../testing.ts'
import { manifestDrift, type Observation } from './drift.ts'

const observed = (body: unknown): Observation => ({
  unit: 'rms',
  surface: 'manifest',
  url: 'http://127.0.0.1:18086/platform-manifest.json',
  observed_at: '2026-01-01T00:00:00.000Z',
  ok: true,
  status: 200,
  reason: null,
  message: null,
  latency_ms: 1,
  body,
})

test("RMS's port policy object (policy, host port 18086, container port 8080) matches its contract", () => {
  const manifest = shippedManifest()
  expect(manifest.runtime_contract.port_policy).toMatchObject({
    policy: 'static-required',
    published_host_port: 18086,
    container_port: 8080,
  })
  const rms = contractIn(fixtureContracts(), 'rms')
  expect(manifestDrift(rms, observed(manifest))).toEqual([])
  const moved = {
    ...manifest,
    runtime_contract: { ...manifest.runtime_contract, port_policy: { policy: 'dynamic' } },
  }
  expect(manifestDrift(rms, observed(moved)).map((d) => d.message)).toEqual([
    expect.stringContaining('runtime_contract.port_policy'),
  ])
})
