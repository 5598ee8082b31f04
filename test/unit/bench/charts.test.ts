import { formatValue, renderBarChart } from '../../bench/charts';

describe('bench bar charts', () => {
  const chart = {
    id: 'c',
    title: 'Joins <fast> & "safe"',
    unit: 'ms',
    bars: [
      { label: 'ours', value: 4, series: 'roomkeeper' as const },
      { label: 'raw', value: 2, series: 'baseline' as const },
      { label: 'lost', value: Number.NaN, series: 'peer' as const },
    ],
    marker: { label: 'target', value: 3 },
  };
  const svg = renderBarChart(chart);

  it('draws bars in proportion to their values, the largest across the plot', () => {
    const widths = [...svg.matchAll(/<rect class="bar" x="290" y="\d+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths).toHaveLength(3);
    expect(widths[0]).toBeCloseTo(2 * (widths[1] as number), 1);
    expect(widths[2]).toBe(0);
  });

  it('escapes text, prints each value with its unit and n/a for a value not measured', () => {
    expect(svg).toContain('Joins &#60;fast&#62; &#38; &#34;safe&#34;');
    expect(svg).not.toContain('<fast>');
    expect(svg).toContain('>4.00 ms<');
    expect(svg).toContain('>n/a<');
  });

  it('places the marker at its value on the same scale', () => {
    const x = Number(/<line x1="([\d.]+)"/.exec(svg)?.[1]);
    const fullWidth = Number(/<rect class="bar" x="290" y="\d+" width="([\d.]+)"/.exec(svg)?.[1]);
    expect(x - 290).toBeCloseTo(0.75 * fullWidth, 0);
  });

  it('formats rates, shares and plain numbers', () => {
    expect(formatValue(1234.5, '/s')).toBe('1235/s');
    expect(formatValue(12.34, '%')).toBe('12.3%');
    expect(formatValue(0.5, '')).toBe('0.50');
  });
});
