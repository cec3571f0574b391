/** A refusal of a curation request; its message is one line for the user. */
export class CurationInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CurationInputError';
  }
}

/** A memory add or supersede whose subject an active item already states differently. */
export class MemoryConflictError extends CurationInputError {
  constructor(readonly ids: string[]) {
    super(`This claim conflicts with active memory ${ids.join(', ')}; supersede or invalidate ${ids.length > 1 ? 'them' : 'it'} first.`);
    this.name = 'MemoryConflictError';
  }
}
