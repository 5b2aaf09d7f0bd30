/**
 * What a failed call says to the person: the server's message (the API envelope's `error`, which the
 * client puts on the thrown Error) when there is one, else the screen's own fallback.
 * @example onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to verify payment') })
 */
export const errorText = (err: unknown, fallback: string): string => (err instanceof Error && err.message ? err.message : fallback);
