import { allowedHostsOf, isAllowedHost } from '../../../local/host-check';

describe('isAllowedHost (DNS rebinding)', () => {
  it.each([
    ['127.0.0.1:3000'],
    ['localhost:3000'],
    ['LOCALHOST'],
    ['api.localhost:3000'],
    ['[::1]:3000'],
    ['192.168.1.20:3000'],
    [undefined],
  ])('lets %j through', (host) => {
    expect(isAllowedHost(host)).toBe(true);
  });

  it.each([
    ['attacker.example:3000'],
    ['attacker.example'],
    ['127.0.0.1.nip.io:3000'],
    ['localhost.attacker.example'],
    ['a:b:c'],
    ['[::1'],
    ['host:port'],
  ])('refuses %j', (host) => {
    expect(isAllowedHost(host)).toBe(false);
  });

  it('lets the names ROOMKEEPER_ALLOWED_HOSTS lists through, whatever their case', () => {
    const allowed = allowedHostsOf({ ROOMKEEPER_ALLOWED_HOSTS: ' devbox.lan , Build-Box ' });
    expect(allowed).toEqual(['devbox.lan', 'Build-Box']);
    expect(isAllowedHost('devbox.lan:3000', allowed)).toBe(true);
    expect(isAllowedHost('build-box', allowed)).toBe(true);
    expect(isAllowedHost('other.lan', allowed)).toBe(false);
  });
});
