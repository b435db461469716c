import { Elysia, t } from 'elysia'
import { ErrorEnvelope, notFound } from '../../../common/errors.ts'
import { jsonView } from '../../../common/json-view.ts'
import { ProfilesResponse, SliceResponse, SlicesResponse, VoiceContractsResponse } from '../model.ts'
import type { PrsDeps } from '../service/deps.ts'

export const combinationRoutes = ({ views }: PrsDeps) =>
  new Elysia({ name: 'prs:combinations', prefix: '/api/v1' })
    .get('/voice/contracts/events', jsonView(VoiceContractsResponse, views.voice), {
      response: { 200: VoiceContractsResponse },
      detail: { summary: 'Voice event contracts' },
    })
    .get('/combinations/profiles', jsonView(ProfilesResponse, views.profiles), {
      response: { 200: ProfilesResponse },
      detail: { summary: 'Combination profiles' },
    })
    .get('/combinations/optional-slices', jsonView(SlicesResponse, views.slices), {
      response: { 200: SlicesResponse },
      detail: { summary: 'Optional slices' },
    })
    .get(
      '/combinations/optional-slices/:slice_key',
      ({ params }) => {
        const all = views.slices()
        const slice = all.slices.find((s) => s.slice_key === params.slice_key)
        if (!slice) throw notFound('slice_not_found', `No optional slice is named ${params.slice_key}.`)
        return { generated_at: all.generated_at, contract_version: all.contract_version, slice }
      },
      {
        params: t.Object({ slice_key: t.String({ minLength: 1, maxLength: 120 }) }),
        response: { 200: SliceResponse, 404: ErrorEnvelope },
        detail: { summary: 'One optional slice' },
      },
    )
