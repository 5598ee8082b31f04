import { verifyParty, type PartyVerifiers } from '../../../../core/auth/party-proof';
import { defaultPlatformIssuer, partyTokenClaims } from '../../../../core/auth/token-model';
import {
  createPlatformTokenVerifier,
  createTokenSigner,
  createTokenVerifier,
  generateSigningKeyPair,
  type TokenSigner,
} from '../../../../core/auth/tokens';
import { RequestInvalidError } from '../../../../core/errors';

let verifiers: PartyVerifiers;
let platformSign: TokenSigner;
let idpSign: TokenSigner;

beforeAll(async () => {
  const idp = await generateSigningKeyPair('idp');
  const platform = await generateSigningKeyPair('platform');
  idpSign = createTokenSigner(idp.privateJwk, 'idp');
  platformSign = createTokenSigner(platform.privateJwk, defaultPlatformIssuer);
  verifiers = {
    verifyToken: createTokenVerifier({ issuer: 'idp', audience: 'api', jwks: JSON.stringify(idp.jwks) }),
    verifyPlatformToken: createPlatformTokenVerifier({
      issuer: defaultPlatformIssuer,
      jwks: JSON.stringify(platform.jwks),
    }),
  };
});

const accessToken = (account: string, scopes: string[] = []) =>
  idpSign({ account, scopes, ttlS: 600, audience: 'api' });
const partyToken = (account: string, leader: string, issuedAt = new Date()) =>
  platformSign(partyTokenClaims(account, leader, issuedAt));

async function fieldsOf(entries: string[], leader = 'alice') {
  const error = await verifyParty(entries, leader, verifiers).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RequestInvalidError);
  return ((error as RequestInvalidError).details as { fields: { field: string }[] }).fields.map((f) => f.field);
}

describe('verifyParty', () => {
  it("takes a member's access token (with its scopes) and a party token minted for the caller (no scopes)", async () => {
    const members = await verifyParty(
      [await accessToken('bob', ['chat']), await partyToken('carol', 'alice')],
      'alice',
      verifiers,
    );
    expect(members).toEqual([
      { account: 'bob', scopes: ['chat'] },
      { account: 'carol', scopes: [] },
    ]);
  });

  it('refuses a party token minted for another leader, naming the entry', async () => {
    expect(await fieldsOf([await accessToken('bob'), await partyToken('carol', 'dave')])).toEqual(['body.party[1]']);
  });

  it('refuses an expired party token', async () => {
    expect(await fieldsOf([await partyToken('carol', 'alice', new Date(Date.now() - 600_000))])).toEqual([
      'body.party[0]',
    ]);
  });

  it("refuses the caller's own token, a member named twice, and what is no token at all", async () => {
    const bob = await partyToken('bob', 'alice');
    expect(await fieldsOf([await accessToken('alice'), bob, await accessToken('bob'), 'nonsense'])).toEqual([
      'body.party[0]',
      'body.party[2]',
      'body.party[3]',
    ]);
  });
});
