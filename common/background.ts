/** Work a unit does off the request path (outbox delivery, polling, control loops). */
export interface BackgroundTask {
  name: string
  start(): void
  stop(): Promise<void> | void
}
