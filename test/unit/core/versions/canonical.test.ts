import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  canonicalTextOf,
  ComponentDefinitionError,
  defineComponent,
  normalizeValue,
  type ComponentInput,
} from '../../../../core/versions/canonical';
import { componentsOfJson } from '../../../../core/versions/components-json';
import { componentOfXml } from '../../../../core/versions/components-xml';

const fixtures = path.resolve(__dirname, '../../../fixtures/versions');
const movementXml = fs.readFileSync(path.join(fixtures, 'PlayerMovement.AutoComponent.xml'), 'utf8');

const hashOfXml = (xml: string) => defineComponent(componentOfXml(xml, 'Door.AutoComponent.xml'), 'x').hash;
const hashOf = (input: Partial<ComponentInput>) =>
  defineComponent({ name: 'Door', rpcs: [], properties: [], inputs: [], archetypes: [], ...input }, 'door.json').hash;

/** Runs `fn` and returns the ComponentDefinitionError it throws. */
function refusal(fn: () => unknown): ComponentDefinitionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ComponentDefinitionError) return error;
    throw error;
  }
  throw new Error('expected a ComponentDefinitionError');
}

describe('normalizeValue', () => {
  it.each([
    ['unsigned   int', 'unsigned int'],
    ['AZStd::fixed_vector< int , 8 >', 'AZStd::fixed_vector<int,8>'],
    ['\r\n\tAZ::Vector3 \n', 'AZ::Vector3'],
    ['const\tchar *', 'const char*'],
    ['a < b > > c', 'a<b>>c'],
  ])('%j → %j', (value, expected) => {
    expect(normalizeValue(value)).toBe(expected);
  });
});

describe('what changes a component hash and what does not', () => {
  const base = movementXml;

  it('ignores line endings, indentation, comments and attribute order', () => {
    const crlf = base.replace(/\n/g, '\r\n');
    const reindented = base.replace(/^ {4}/gm, '\t\t').replace(/ Name="Velocity" /, '\n  Name = "Velocity"\n  ');
    const commented = base.replace('<NetworkInput', '<!-- inputs -->\n    <NetworkInput');
    const reordered = base.replace(
      '<RemoteProcedure Name="SendCorrection" InvokeFrom="Authority" HandleOn="Autonomous" IsReliable="false">',
      '<RemoteProcedure IsReliable="false" HandleOn="Autonomous" Name="SendCorrection" InvokeFrom="Authority">',
    );
    for (const variant of [crlf, reindented, commented, reordered]) {
      expect(variant).not.toBe(base);
      expect(hashOfXml(variant)).toBe(hashOfXml(base));
    }
  });

  it('ignores what has no wire meaning: descriptions, Init, IsPublic, editor and script flags, includes', () => {
    const variant = base
      .replace('Description="Current velocity"', 'Description="How fast"')
      .replace('Init="3.0f"', 'Init="5.0f"')
      .replace('IsPublic="false" IsRewindable', 'IsPublic="true" IsRewindable')
      .replace('ExposeToEditor="false"', 'ExposeToEditor="true"')
      .replace('<Include File="Source/Movement/MovementTypes.h" />', '');
    expect(hashOfXml(variant)).toBe(hashOfXml(base));
  });

  it('detects RPCs, params, properties and inputs reordered: the engine numbers them by declaration', () => {
    const rpcs = [
      { name: 'A', params: [] },
      { name: 'B', params: [] },
    ];
    expect(hashOf({ rpcs: [rpcs[1]!, rpcs[0]!] })).not.toBe(hashOf({ rpcs }));
    const params = [
      { name: 'x', type: 'int' },
      { name: 'y', type: 'int' },
    ];
    expect(hashOf({ rpcs: [{ name: 'A', params: [params[1]!, params[0]!] }] })).not.toBe(
      hashOf({ rpcs: [{ name: 'A', params }] }),
    );
    const properties = [
      { name: 'P', type: 'int' },
      { name: 'Q', type: 'int' },
    ];
    expect(hashOf({ properties: [properties[1]!, properties[0]!] })).not.toBe(hashOf({ properties }));
    expect(hashOf({ inputs: [properties[1]!, properties[0]!] })).not.toBe(hashOf({ inputs: properties }));
  });

  it('detects an RPC reorder in AutoComponent XML', () => {
    const jump = base.slice(
      base.indexOf('<RemoteProcedure Name="SendJump"'),
      base.indexOf('<RemoteProcedure Name="SendCorrection"'),
    );
    const swapped = base.replace(jump, '').replace('</Component>', `${jump}</Component>`);
    expect(hashOfXml(swapped)).not.toBe(hashOfXml(base));
  });

  it('does not detect archetype properties reordered: they are not replicated', () => {
    const archetypes = [
      { name: 'Speed', type: 'float' },
      { name: 'Sound', type: 'AZ::Name' },
    ];
    expect(hashOf({ archetypes: [archetypes[1]!, archetypes[0]!] })).toBe(hashOf({ archetypes }));
  });

  it('detects each wire-relevant field', () => {
    const rpc = { name: 'A', invokeFrom: 'Autonomous', handleOn: 'Authority', reliable: false, params: [] };
    const property = { name: 'P', type: 'int', replicateFrom: 'Authority', replicateTo: 'Client' };
    const hashes = [
      hashOf({ rpcs: [rpc] }),
      hashOf({ rpcs: [{ ...rpc, reliable: true }] }),
      hashOf({ rpcs: [{ ...rpc, handleOn: 'Client' }] }),
      hashOf({ properties: [property] }),
      hashOf({ properties: [{ ...property, replicateTo: 'Autonomous' }] }),
      hashOf({ properties: [{ ...property, rewindable: true }] }),
      hashOf({ properties: [{ ...property, predictable: true }] }),
      hashOf({ properties: [{ ...property, container: 'Array', count: '4' }] }),
      hashOf({ properties: [{ ...property, container: 'Array', count: '8' }] }),
      hashOf({ properties: [{ ...property, type: 'long' }] }),
    ];
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('treats an absent container as Object and drops the count of an Object', () => {
    const property = { name: 'P', type: 'int' };
    expect(hashOf({ properties: [property] })).toBe(
      hashOf({ properties: [{ ...property, container: 'Object', count: '3' }] }),
    );
  });
});

describe('refusals name the file and the element', () => {
  it('refuses a value that is not printable ASCII', () => {
    const error = refusal(() => hashOf({ rpcs: [{ name: 'Say', params: [{ name: 'Text', type: 'wchar_t€' }] }] }));
    expect(error.message).toBe(
      'door.json: component "Door" > rpc 1 "Say" > param 1 "Text": type must be printable ASCII, got "wchar_t€"',
    );
  });

  it('refuses bad XML values with the element and its line', () => {
    const bad = (body: string) =>
      refusal(() => componentOfXml(`<Component Name="Door">\n${body}\n</Component>`, 'Door.AutoComponent.xml'));
    expect(bad('<NetworkProperty Name="P" Type="int" IsRewindable="yes" />').message).toBe(
      'Door.AutoComponent.xml: <NetworkProperty Name="P"> (line 2): IsRewindable must be true or false, got "yes"',
    );
    expect(bad('<Mystery Name="M" />').message).toMatch(/^Door\.AutoComponent\.xml: <Mystery Name="M"> \(line 2\): /);
    expect(refusal(() => componentOfXml('<Component Name="Door">', 'Door.xml')).message).toMatch(
      /^Door\.xml: \(file\): not well-formed XML: /,
    );
  });

  it.each([
    [
      { rpcs: [{ name: 'A', invokeFrom: 'Host', params: [] }] },
      'invokeFrom must be one of Authority, Autonomous, Client, Server',
    ],
    [
      {
        rpcs: [
          { name: 'A', params: [] },
          { name: 'A', params: [] },
        ],
      },
      'two RPCs are named "A"',
    ],
    [
      { properties: [{ name: 'P', type: 'int', container: 'Vector' }] },
      'count (an Array or a Vector needs one) is missing',
    ],
    [
      { properties: [{ name: 'P', type: 'int', container: 'List', count: '2' }] },
      'container must be Object, Array or Vector',
    ],
    [{ inputs: [{ name: 'my input', type: 'int' }] }, 'is not an identifier'],
    [{ namespace: 'Bad Space' }, 'is not a qualified name'],
  ])('refuses %j', (input, problem) => {
    expect(refusal(() => hashOf(input as Partial<ComponentInput>)).message).toContain(problem);
  });

  it('refuses an unknown JSON field, naming where it is', () => {
    const text = JSON.stringify({ components: [{ name: 'Door', rpcs: [{ name: 'A', relaible: true }] }] });
    expect(refusal(() => componentsOfJson(text, 'door.json')).message).toMatch(
      /^door\.json: components\[0\]\.rpcs\[0\]: /,
    );
    expect(refusal(() => componentsOfJson('{', 'door.json')).message).toMatch(/^door\.json: \(file\): not JSON/);
  });

  it('reads a single component object and a bare array as well as { components }', () => {
    const door = { name: 'Door' };
    const texts = [door, [door], { components: [door] }].map((value) =>
      componentsOfJson(JSON.stringify(value), 'door.json').map((input) => canonicalTextOf(input, 'door.json')),
    );
    expect(texts).toEqual([['component\tDoor\n'], ['component\tDoor\n'], ['component\tDoor\n']]);
  });
});
