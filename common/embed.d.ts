// Files imported `with { type: 'text' }` or `with { type: 'file' }` (embedded in the executable).
declare module '*.sql' {
  const text: string
  export default text
}
declare module '*.css' {
  const path: string
  export default path
}
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string
  export default path
}
