// Markdown imported `with { type: 'text' }` (docs compiled into the executable).
declare module '*.md' {
  const text: string
  export default text
}
