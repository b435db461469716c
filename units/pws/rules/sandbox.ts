/** The adapter sandbox rules (spec: rules for sandbox writes), as pure checks. */

export const SANDBOX_SCENARIOS = ['project', 'support', 'qa', 'release'] as const
export type SandboxScenario = (typeof SANDBOX_SCENARIOS)[number]

/** Bounds of the per-request timeout and retry (the spec says bounded, not by how much). */
export const SANDBOX_LIMITS = {
  timeoutMs: { min: 100, max: 30_000 },
  maxAttempts: { min: 1, max: 5 },
  backoffMs: { min: 0, max: 5_000 },
} as const

export type SandboxRefusal = { status: 403 | 409 | 422; code: string; message: string }

export function sandboxGate(
  settings: { enabled: boolean; projectPrefix: string; ownerRepo: string | undefined },
  projectId: string,
  ownerRepo: string,
): SandboxRefusal | undefined {
  if (!settings.enabled) {
    return {
      status: 403,
      code: 'sandbox_writes_disabled',
      message: 'Adapter sandbox writes are disabled (ADAPTER_SANDBOX_WRITE_ENABLED).',
    }
  }
  if (!projectId.startsWith(settings.projectPrefix)) {
    return {
      status: 403,
      code: 'sandbox_project_prefix_mismatch',
      message: `Sandbox writes only go to projects whose id starts with ${settings.projectPrefix}.`,
    }
  }
  if (settings.ownerRepo === undefined || ownerRepo !== settings.ownerRepo) {
    return {
      status: 403,
      code: 'sandbox_owner_repo_mismatch',
      message: 'owner_attribution.owner_repo is not the configured owner repository.',
    }
  }
  return undefined
}
