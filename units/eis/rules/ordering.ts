/** Where a ticketing event stands in its ticket's sequence. Pure. */
export type Position = 'first' | 'in_order' | 'out_of_order' | 'duplicate'

export interface Ordering {
  sequence: number
  previous_sequence: number | null
  position: Position
  gap: boolean
}

/** `previous` is the highest sequence stored for the ticket before this event (null: none). */
export function orderingOf(sequence: number, previous: number | null): Ordering {
  if (previous === null) return { sequence, previous_sequence: null, position: 'first', gap: false }
  if (sequence < previous)
    return { sequence, previous_sequence: previous, position: 'out_of_order', gap: false }
  return { sequence, previous_sequence: previous, position: 'in_order', gap: sequence > previous + 1 }
}

/** A redelivery keeps the ordering it first had, reported as a duplicate. */
export const asDuplicate = (first: Ordering): Ordering => ({ ...first, position: 'duplicate' })
