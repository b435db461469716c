/**
 * The inbound contracts a workflow exposes to callers outside n8n, monitored (never called):
 * webhooks (Webhook and Form triggers: path and method) and callbacks (a Wait node resuming on a
 * webhook or a form: callers must call its resume URL). Pure.
 */
import type { N8nNode, N8nWorkflow } from '../service/automation.ts'

export interface InboundContract {
  workflow_id: string
  node: string
  kind: 'webhook' | 'callback'
  path: string | null
  method: string | null
  /** listening: callable now; inactive: the workflow is off; disabled: the node is off. */
  state: 'listening' | 'inactive' | 'disabled'
}

const str = (v: unknown) => (typeof v === 'string' ? v : null)

function kindOf(n: N8nNode): InboundContract['kind'] | undefined {
  if (/\.(webhook|formTrigger)$/.test(n.type)) return 'webhook'
  if (n.type === 'n8n-nodes-base.wait' && ['webhook', 'form'].includes(String(n.parameters?.resume)))
    return 'callback'
  return undefined
}

export function inboundContracts(w: N8nWorkflow): InboundContract[] {
  return w.nodes.flatMap((n) => {
    const kind = kindOf(n)
    if (!kind) return []
    return [
      {
        workflow_id: w.id,
        node: n.name,
        kind,
        path: str(n.parameters?.path) ?? str(n.webhookId),
        method:
          str(n.parameters?.httpMethod) ?? (kind === 'webhook' && n.type.endsWith('.webhook') ? 'GET' : null),
        state: n.disabled ? 'disabled' : w.active ? 'listening' : 'inactive',
      },
    ]
  })
}
