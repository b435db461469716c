import { sha256Hex } from '../../../common/hash.ts'

export interface LocalToken {
  subject: string
  read: boolean
  write: boolean
}

/** `RMS_LOCAL_TOKENS=token:subject:rw,token:subject:r` (development and test only, or read-only break-glass in production). */
export function parseLocalTokens(raw: string | undefined): {
  tokens: Map<string, LocalToken>
  problems: string[]
} {
  const tokens = new Map<string, LocalToken>()
  const problems: string[] = []
  for (const [i, part] of (raw ?? '').split(',').entries()) {
    if (part.trim() === '') continue
    // token:subject:mode, where the subject itself may contain colons (user:alice).
    const fields = part.trim().split(':')
    const token = fields[0]
    const mode = fields.length >= 3 ? fields[fields.length - 1] : undefined
    const subject = fields.slice(1, -1).join(':')
    if (!token || !subject || !mode || !/^(r|rw|w)$/.test(mode) || token.length < 8) {
      problems.push(
        `RMS_LOCAL_TOKENS: entry ${i + 1} must be token:subject:r|rw with a token of 8+ characters`,
      )
      continue
    }
    tokens.set(sha256Hex(token), { subject, read: mode.includes('r'), write: mode.includes('w') })
  }
  return { tokens, problems }
}
