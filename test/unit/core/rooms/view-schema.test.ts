import {
  patchMemberRequestSchema,
  patchRoomRequestSchema,
  refuseConstantsWrite,
  sessionRoomViewSchema,
} from '../../../../core/rooms/view-schema';
import { SessionConstantsImmutableError } from '../../../../core/rooms/session-errors';

function fieldsOf(schema: { safeParse(v: unknown): { success: boolean; error?: { issues: any[] } } }, body: unknown) {
  const result = schema.safeParse(body);
  if (result.success) return [];
  return result.error!.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key: string) => [...issue.path, key].join('.'))
      : [issue.path.join('.')],
  );
}

describe('patchRoomRequestSchema', () => {
  it.each([
    [{ properties: { joinability: 'closed' } }],
    [{ properties: { custom: { round: 2 } } }],
    [{ properties: { joinability: 'inviteOnly', custom: {} } }],
    [{ properties: {} }],
  ])('accepts %j', (body) => expect(fieldsOf(patchRoomRequestSchema, body)).toEqual([]));

  it.each([
    ['an empty body', {}, ['properties']],
    ['an unknown joinability', { properties: { joinability: 'ajar' } }, ['properties.joinability']],
    ['an unknown property', { properties: { visibility: 'open' } }, ['properties.visibility']],
    ['an unknown top-level key', { properties: {}, members: [] }, ['members']],
    ['custom over 2 KB', { properties: { custom: { blob: 'x'.repeat(2048) } } }, ['properties.custom']],
  ])('refuses %s: 400 naming the field', (_name, body, fields) => {
    expect(fieldsOf(patchRoomRequestSchema, body)).toEqual(fields);
  });

  it.each([[{ constants: { maxMembers: 3 } }], [{ constants: null }], [{ properties: {}, constants: {} }]])(
    'lets %j through the schema so that refuseConstantsWrite answers 403, not 400',
    (body) => {
      const parsed = patchRoomRequestSchema.parse(body);
      expect(() => refuseConstantsWrite(parsed, 'r1')).toThrow(SessionConstantsImmutableError);
      expect(() => refuseConstantsWrite(parsed, 'r1')).toThrow(
        expect.objectContaining({ code: 'FORBIDDEN', status: 403 }),
      );
    },
  );

  it('refuseConstantsWrite hands back the properties of a body without constants', () => {
    expect(refuseConstantsWrite(patchRoomRequestSchema.parse({ properties: { joinability: 'closed' } }))).toEqual({
      properties: { joinability: 'closed' },
    });
  });
});

describe('patchMemberRequestSchema', () => {
  it.each([
    [{ state: 'ready' }],
    [{ state: 'active' }],
    [{ state: 'inactive' }],
    [{ properties: { custom: { team: 'red' } } }],
  ])('accepts %j', (body) => expect(fieldsOf(patchMemberRequestSchema, body)).toEqual([]));

  it.each([
    ['an empty body', {}, ['state']],
    ['the reserved state (only the platform sets it)', { state: 'reserved' }, ['state']],
    ['an unknown state', { state: 'away' }, ['state']],
    ['another member', { account: 'bob', state: 'ready' }, ['account']],
    ['properties without custom', { properties: {} }, ['properties.custom']],
    ['a member custom over 512 B', { properties: { custom: { blob: 'x'.repeat(512) } } }, ['properties.custom']],
  ])('refuses %s: 400 naming the field', (_name, body, fields) => {
    expect(fieldsOf(patchMemberRequestSchema, body)).toEqual(fields);
  });
});

describe('sessionRoomViewSchema', () => {
  it('describes the room of docs/api.md with its session document', () => {
    const room = {
      roomId: 'r1',
      gameId: 'arena',
      version: '1.0.0',
      region: 'local',
      state: 'ready',
      settings: {},
      maxPlayers: 2,
      players: 1,
      changeNumber: 3,
      template: 'duel',
      constants: {
        maxMembers: 2,
        visibility: 'open',
        timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
        custom: {},
        migrateHost: false,
        hostTimeoutMs: 15_000,
      },
      properties: { joinability: 'open', custom: {} },
      members: [{ account: 'alice', state: 'reserved', properties: { custom: {} } }],
      host: { epoch: 1 },
    };
    expect(sessionRoomViewSchema.safeParse(room).success).toBe(true);
    const { members: _members, ...withoutMembers } = room;
    expect(sessionRoomViewSchema.safeParse(withoutMembers).success).toBe(true);
  });
});
