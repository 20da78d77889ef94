// Ranges of the source timeline, and how a requested range was changed to fit the source.

export interface TimeRange { start: number; end: number }

/** Reported when the requested range ran past the real duration (spec 4.2). */
export interface TimeAdjustment { original: TimeRange; adjusted: TimeRange }
