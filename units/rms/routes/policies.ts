import { Elysia, t } from 'elysia'
import { notFound } from '../../../common/errors.ts'
import { CACHED_VIEW, jsonViews } from '../../../common/json-view.ts'
import { type AuthorityPlugin, type AuthorityService, mark, markKey } from '../authority.ts'
import {
  AgentToolPolicies,
  AgentToolPolicy,
  LibraryGovernance,
  ToolProfiles,
  VoiceTarget,
  VoiceTargets,
} from '../model.ts'
import { agentToolPolicy, voiceGovernance } from '../rules/policies.ts'
import type { RuntimeService } from '../service/runtime.ts'
import { READ_ERRORS } from './runtime.ts'

export interface PolicyDeps {
  auth: AuthorityPlugin
  authority: AuthorityService
  runtime: RuntimeService
}

const Slug = t.Object({ agent_slug: t.String({ minLength: 1, maxLength: 63 }) })

/** Tool profiles, agent tool policies, voice targets and voice library governance. */
export const policyRoutes = (deps: PolicyDeps) => {
  const projection = async () => {
    const { state, held } = await deps.authority.currentProjection()
    return {
      state,
      version: held?.version ?? null,
      agents: new Map((held?.agents ?? []).map((a) => [a.agent_id, { read: a.read }])),
    }
  }
  const voices = async () => {
    const c = await deps.runtime.catalog()
    const byId = new Map(c.voices.map((v) => [v.target_id, v]))
    const defaultId = c.host?.default_voice_target ?? null
    return { c, byId, defaultId, defaultTarget: defaultId ? byId.get(defaultId) : undefined }
  }

  const profilesView = jsonViews(ToolProfiles)

  return new Elysia({ name: 'rms:policies' }).use(deps.auth).guard({ access: 'read' }, (app) =>
    app
      .get(
        '/api/v1/tool-profiles',
        async ({ authority, request, set }) => {
          const c = await deps.runtime.catalog()
          return profilesView({ request, set }, c, markKey(authority), () => ({
            items: c.profiles,
            count: c.profiles.length,
            ...mark(authority),
          }))
        },
        {
          response: { 200: ToolProfiles, ...READ_ERRORS },
          detail: { summary: 'Tool profiles', ...CACHED_VIEW },
        },
      )
      .get(
        '/api/v1/agent-tool-policies',
        async ({ authority }) => {
          const c = await deps.runtime.catalog()
          const p = await projection()
          const profiles = new Map(c.profiles.map((x) => [x.profile_id, x]))
          const items = c.agents.map((a) => agentToolPolicy(a, profiles, p))
          return { items, count: items.length, ...mark(authority) }
        },
        { response: { 200: AgentToolPolicies, ...READ_ERRORS }, detail: { summary: 'Agent tool policies' } },
      )
      .get(
        '/api/v1/agent-tool-policies/:agent_slug',
        async ({ authority, params }) => {
          const c = await deps.runtime.catalog()
          const agent = c.agents.find((a) => a.agent_slug === params.agent_slug)
          if (!agent) throw notFound('agent_not_found', 'No agent has this slug.')
          const policy = agentToolPolicy(
            agent,
            new Map(c.profiles.map((x) => [x.profile_id, x])),
            await projection(),
          )
          return { policy, ...mark(authority) }
        },
        {
          params: Slug,
          response: { 200: AgentToolPolicy, ...READ_ERRORS },
          detail: { summary: 'Tool policy of one agent' },
        },
      )
      .get(
        '/api/v1/voice/targets',
        async ({ authority }) => {
          const { c, defaultId } = await voices()
          return { targets: c.voices, count: c.voices.length, default_target: defaultId, ...mark(authority) }
        },
        { response: { 200: VoiceTargets, ...READ_ERRORS }, detail: { summary: 'Voice targets' } },
      )
      .get(
        '/api/v1/voice/targets/default',
        async ({ authority }) => {
          const { defaultTarget } = await voices()
          if (!defaultTarget)
            throw notFound(
              'default_voice_target_not_found',
              'The runtime host declares no resolvable default voice target.',
            )
          return {
            target: defaultTarget,
            resolution: 'default' as const,
            agent_slug: null,
            usable: voiceGovernance(defaultTarget, new Date()).usable,
            ...mark(authority),
          }
        },
        { response: { 200: VoiceTarget, ...READ_ERRORS }, detail: { summary: 'Default voice target' } },
      )
      .get(
        '/api/v1/voice/targets/:agent_slug',
        async ({ authority, params }) => {
          const { c, byId, defaultTarget } = await voices()
          const agent = c.agents.find((a) => a.agent_slug === params.agent_slug)
          if (!agent) throw notFound('agent_not_found', 'No agent has this slug.')
          // An agent naming a target that does not exist gets no fallback: that is a broken binding.
          const own = agent.voice_target ? byId.get(agent.voice_target) : undefined
          if (agent.voice_target && !own)
            throw notFound(
              'voice_target_not_found',
              `The agent's voice target ${agent.voice_target} is not on the runtime host.`,
            )
          const target = own ?? defaultTarget
          if (!target)
            throw notFound('voice_target_not_found', 'The agent has no voice target and there is no default.')
          return {
            target,
            resolution: own ? ('agent' as const) : ('default' as const),
            agent_slug: agent.agent_slug,
            usable: voiceGovernance(target, new Date()).usable,
            ...mark(authority),
          }
        },
        {
          params: Slug,
          response: { 200: VoiceTarget, ...READ_ERRORS },
          detail: { summary: 'Voice target of an agent (or the default)' },
        },
      )
      .get(
        '/api/v1/voice/library-governance',
        async ({ authority }) => {
          const now = new Date()
          const items = (await deps.runtime.catalog()).voices.map((v) => voiceGovernance(v, now))
          return {
            items,
            count: items.length,
            reconsent_required: items.filter((i) => i.reconsent_required).map((i) => i.target_id),
            ...mark(authority),
          }
        },
        {
          response: { 200: LibraryGovernance, ...READ_ERRORS },
          detail: { summary: 'Voice library governance' },
        },
      ),
  )
}
