import { defineComponent } from '../../core/versions/canonical';
import { componentsOfJson } from '../../core/versions/components-json';
import { setHashOf, type Protocol } from '../../core/versions/protocol';
import components from './components.json';

/**
 * The sample game's build as its `inited` reports it (docs/versions.md): the hashes of the
 * network components its players' clients speak, declared in components.json beside this file
 * and bundled with the game. No `builtAt`: the sample has no build step to stamp it.
 */
export function sampleProtocol(): Protocol {
  const definitions = componentsOfJson(JSON.stringify(components), 'containers/sample-game/components.json').map(
    (input) => defineComponent(input, 'containers/sample-game/components.json'),
  );
  const hashes = Object.fromEntries(definitions.map((definition) => [definition.name, definition.hash]));
  return { hash: setHashOf(hashes), components: hashes };
}
