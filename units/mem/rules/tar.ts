/** A minimal POSIX ustar writer: regular files only, enough for a status bundle any `tar` reads. */
const BLOCK = 512
const encoder = new TextEncoder()

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`
}

function header(name: string, size: number, mtime: number): Uint8Array {
  const h = new Uint8Array(BLOCK)
  const put = (text: string, offset: number) => h.set(encoder.encode(text), offset)
  if (encoder.encode(name).length > 100) throw new Error(`tar entry name too long: ${name}`)
  put(name, 0)
  put(octal(0o644, 8), 100)
  put(octal(0, 8), 108)
  put(octal(0, 8), 116)
  put(octal(size, 12), 124)
  put(octal(mtime, 12), 136)
  put('        ', 148) // checksum field counts as spaces while summing
  put('0', 156)
  put('ustar\u000000', 257)
  const sum = h.reduce((a, b) => a + b, 0)
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  return h
}

/** The tar archive of the given files (names relative, `/`-separated). */
export function tar(
  files: readonly { name: string; text: string }[],
  mtime = Math.floor(Date.now() / 1000),
): Uint8Array {
  const parts: Uint8Array[] = []
  for (const f of files) {
    const data = encoder.encode(f.text)
    parts.push(
      header(f.name, data.length, mtime),
      data,
      new Uint8Array((BLOCK - (data.length % BLOCK)) % BLOCK),
    )
  }
  parts.push(new Uint8Array(BLOCK * 2))
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
