import {
  acceptsAudience,
  gameServerAudience,
  gameServerTokenClaims,
  grantableScopes,
  identityProviderConflict,
  isPlatformMinted,
  joinedTokenClaims,
  joinedTokenScopes,
  partyAudience,
  roomAudience,
} from '../../../core/auth/token-model';

describe('token model', () => {
  it("a game server token carries the configuration's serverScopes without admin, for the game-server audience", () => {
    expect(gameServerTokenClaims('r1', ['chat', 'admin', 'chat', 'trade'])).toEqual({
      account: 'server:r1',
      scopes: ['chat', 'trade'],
      ttlS: 24 * 3600,
      audience: 'roomkeeper:game-server',
      extra: { room: 'r1' },
    });
  });

  it('a joined token is for one room, one hour', () => {
    const issuedAt = new Date('2026-01-01T00:00:00Z');
    expect(joinedTokenClaims({ account: 'alice', roomId: 'r1', scopes: ['chat'], issuedAt })).toEqual({
      account: 'alice',
      scopes: ['chat'],
      ttlS: 3600,
      audience: 'roomkeeper:room:r1',
      issuedAt,
      extra: { room: 'r1' },
    });
  });

  it.each([
    ['an admin joining a room that allows chat', ['admin', 'play', 'chat'], ['chat'], [], ['chat']],
    ['a player whose scopes the configuration does not allow', ['play'], ['chat'], [], []],
    ['a granted extension within serverScopes', ['play'], ['play', 'trade'], ['trade'], ['play', 'trade']],
    ['an extension beyond serverScopes', [], ['chat'], ['trade'], []],
    ['admin in a stored configuration and the member', ['admin'], ['admin'], ['admin'], []],
  ])('joined scopes for %s', (_name, member, server, extension, expected) => {
    expect(joinedTokenScopes(member, server, extension)).toEqual(expected);
  });

  it('grantable scopes drop admin and duplicates', () => {
    expect(grantableScopes(['admin', 'a', 'a', 'b'])).toEqual(['a', 'b']);
  });

  it.each([
    [{ iss: 'roomkeeper-platform' }, true],
    [{ iss: 'idp', aud: gameServerAudience }, true],
    [{ iss: 'idp', aud: ['api', roomAudience('r')] }, true],
    [{ iss: 'idp', aud: partyAudience }, true],
    [{ iss: 'idp', aud: 'api' }, false],
    [{ iss: 'idp', client_id: 'roomkeeper:room:r' }, false],
  ])('isPlatformMinted(%j) is %s', (payload, expected) => {
    expect(isPlatformMinted(payload, 'roomkeeper-platform')).toBe(expected);
  });

  it('reads client_id only when aud is absent', () => {
    expect(acceptsAudience({ client_id: 'api' }, 'api')).toBe(true);
    expect(acceptsAudience({ aud: 'x', client_id: 'api' }, 'api')).toBe(false);
    expect(acceptsAudience({}, 'api')).toBe(false);
  });

  it.each([
    [{ issuer: 'roomkeeper-platform' }, 'issuer'],
    [{ issuer: 'idp', audience: 'roomkeeper:game-server' }, 'reserved'],
    [{ issuer: 'idp', audience: partyAudience }, 'reserved'],
  ])('refuses an identity provider setting that would let platform tokens in: %j', (idp, word) => {
    expect(identityProviderConflict(idp, 'roomkeeper-platform')).toContain(word);
  });

  it('accepts a distinct identity provider', () => {
    expect(identityProviderConflict({ issuer: 'https://idp/', audience: 'api' }, 'roomkeeper-platform')).toBe(
      undefined,
    );
  });
});
