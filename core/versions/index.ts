/**
 * Version safety for TypeScript games and clients (docs/versions.md): make the build's manifest
 * from its component files, send it as `protocol`, read a PROTOCOL_MISMATCH's diff.
 */
export {
  canonicalTextOf,
  ComponentDefinitionError,
  defineComponent,
  normalizeValue,
  type ComponentDefinition,
  type ComponentInput,
} from './canonical';
export { componentsOfJson } from './components-json';
export { componentOfXml } from './components-xml';
export { definitionsOfFiles, definitionsOfText, protocolOf, protocolOfFiles, type Manifest } from './manifest';
export { protocolDiff, protocolSchema, setHashOf, type NewerSide, type Protocol, type ProtocolDiff } from './protocol';
