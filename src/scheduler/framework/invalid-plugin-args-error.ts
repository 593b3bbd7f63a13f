/** A plugin's configuration (pluginConfig args) cannot be used. */
export class InvalidPluginArgsError extends Error {
  override readonly name = 'InvalidPluginArgsError';

  constructor(
    readonly plugin: string,
    detail: string,
  ) {
    super(`${plugin}: ${detail}`);
  }
}
