/**
 * Bad input to a navigation query (a name, a path, a citation). The engine turns it into its
 * `UserInputError`; it is its own class because the engine imports this folder, not the reverse.
 */
export class NavigationInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NavigationInputError';
  }
}
