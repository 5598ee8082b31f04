import { distanceKm, isPublicAddress, locateCaller } from '../../../../core/placement/geo';

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['81.2.69.142', true],
    ['2001:4860:4860::8888', true],
    ['::ffff:8.8.8.8', true],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['127.0.0.1', false],
    ['169.254.1.1', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['2001:db8::1', false],
    ['::ffff:10.0.0.1', false],
    ['', false],
    ['not an address', false],
    ['999.1.1.1', false],
  ])('%s → %s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});

describe('locateCaller', () => {
  const known = (ip: string) => (ip === '81.2.69.142' || ip === '2a00:1450::1' ? { lat: 52.2, lon: 0.48 } : undefined);

  it('prefers CloudFront viewer headers over the IP', () => {
    expect(
      locateCaller(
        {
          headers: { 'cloudfront-viewer-latitude': '35.68', 'cloudfront-viewer-longitude': '139.69' },
          sourceIp: '81.2.69.142',
        },
        known,
      ),
    ).toEqual({ lat: 35.68, lon: 139.69, source: 'cloudfront-headers' });
  });

  it('ignores malformed or out-of-range headers and uses the IP database', () => {
    for (const lat of ['91', 'abc', '1e3', '']) {
      expect(
        locateCaller(
          {
            headers: { 'cloudfront-viewer-latitude': lat, 'cloudfront-viewer-longitude': '1' },
            sourceIp: '81.2.69.142',
          },
          known,
        ),
      ).toEqual({ lat: 52.2, lon: 0.48, source: 'ip-database' });
    }
  });

  it('locates public IPv4 and IPv6 addresses the database knows', () => {
    expect(locateCaller({ headers: {}, sourceIp: '2a00:1450::1' }, known)?.source).toBe('ip-database');
  });

  it('knows nothing of private, loopback or unknown addresses, or without a database', () => {
    expect(locateCaller({ headers: {}, sourceIp: '10.0.0.1' }, () => ({ lat: 1, lon: 1 }))).toBeUndefined();
    expect(locateCaller({ headers: {}, sourceIp: 'fd00::1' }, () => ({ lat: 1, lon: 1 }))).toBeUndefined();
    expect(locateCaller({ headers: {}, sourceIp: '8.8.4.4' }, known)).toBeUndefined();
    expect(locateCaller({ headers: {}, sourceIp: '81.2.69.142' })).toBeUndefined();
  });
});

describe('distanceKm', () => {
  it('measures great-circle distances', () => {
    // Paris – London ≈ 344 km; antipodes ≈ half the circumference.
    expect(distanceKm({ lat: 48.8566, lon: 2.3522 }, { lat: 51.5074, lon: -0.1278 })).toBeCloseTo(344, -1);
    expect(distanceKm({ lat: 0, lon: 0 }, { lat: 0, lon: 180 })).toBeCloseTo(20_015, -1);
  });
});
