/**
 * The example runtime host the repository ships, embedded by import so the compiled executable
 * can seed a fresh data directory without the repository folder on disk.
 */
import f0 from '../../examples/runtime-host/agents/a-billing-clerk.json' with { type: 'json' }
import f1 from '../../examples/runtime-host/agents/a-ops-coordinator.json' with { type: 'json' }
import f2 from '../../examples/runtime-host/agents/a-orchestrator.json' with { type: 'json' }
import f3 from '../../examples/runtime-host/agents/a-research-worker.json' with { type: 'json' }
import f4 from '../../examples/runtime-host/agents/a-support-desk.json' with { type: 'json' }
import f5 from '../../examples/runtime-host/delegations/d-ops-to-support.json' with { type: 'json' }
import f6 from '../../examples/runtime-host/delegations/d-support-to-billing.json' with { type: 'json' }
import f7 from '../../examples/runtime-host/domains/billing.json' with { type: 'json' }
import f8 from '../../examples/runtime-host/domains/research.json' with { type: 'json' }
import f9 from '../../examples/runtime-host/domains/support.json' with { type: 'json' }
import f10 from '../../examples/runtime-host/host.json' with { type: 'json' }
import f11 from '../../examples/runtime-host/teams/ops.json' with { type: 'json' }
import f12 from '../../examples/runtime-host/teams/support.json' with { type: 'json' }
import f13 from '../../examples/runtime-host/tool-profiles/operator-sandbox.json' with { type: 'json' }
import f14 from '../../examples/runtime-host/tool-profiles/read-only.json' with { type: 'json' }
import f15 from '../../examples/runtime-host/tool-profiles/support-desk.json' with { type: 'json' }
import f16 from '../../examples/runtime-host/voice-targets/vt-default.json' with { type: 'json' }
import f17 from '../../examples/runtime-host/voice-targets/vt-support.json' with { type: 'json' }

/** Relative path → document. `seed.test.ts` checks this list matches the folder. */
export const EXAMPLE_HOST_FILES: Record<string, unknown> = {
  'agents/a-billing-clerk.json': f0,
  'agents/a-ops-coordinator.json': f1,
  'agents/a-orchestrator.json': f2,
  'agents/a-research-worker.json': f3,
  'agents/a-support-desk.json': f4,
  'delegations/d-ops-to-support.json': f5,
  'delegations/d-support-to-billing.json': f6,
  'domains/billing.json': f7,
  'domains/research.json': f8,
  'domains/support.json': f9,
  'host.json': f10,
  'teams/ops.json': f11,
  'teams/support.json': f12,
  'tool-profiles/operator-sandbox.json': f13,
  'tool-profiles/read-only.json': f14,
  'tool-profiles/support-desk.json': f15,
  'voice-targets/vt-default.json': f16,
  'voice-targets/vt-support.json': f17,
}
