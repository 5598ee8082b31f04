import type { Bar, BarChart } from './summary';

/**
 * Horizontal bar charts as standalone SVG: no browser, no fonts to install, and the files
 * diff and render on any Git host. One row per bar, its value printed at its end, bars
 * coloured by series so a figure and its baseline read apart at a glance.
 */
const colours: Record<Bar['series'], string> = {
  roomkeeper: '#2f6fdf',
  baseline: '#8a8f98',
  peer: '#e07b22',
  ceiling: '#4caf7a',
};
const seriesNames: Record<Bar['series'], string> = {
  roomkeeper: 'Roomkeeper',
  baseline: 'raw baseline (same run)',
  peer: 'peer (Colyseus)',
  ceiling: 'ceiling (same run)',
};

const width = 760;
const labelWidth = 290;
const valueWidth = 90;
const rowHeight = 26;
const top = 56;
const legendHeight = 30;

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit === '' ? '' : unit.startsWith('/') || unit === '%' ? unit : ` ${unit}`}`;
}

export function renderBarChart(chart: BarChart): string {
  const finite = chart.bars.map((b) => b.value).filter((v) => Number.isFinite(v) && v > 0);
  const scaleMax = Math.max(...finite, chart.marker?.value ?? 0, Number.MIN_VALUE);
  const plotWidth = width - labelWidth - valueWidth - 20;
  const x = (value: number) => labelWidth + (Number.isFinite(value) ? Math.max(0, value / scaleMax) * plotWidth : 0);
  const height = top + chart.bars.length * rowHeight + legendHeight + 10;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="13">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="24" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  chart.bars.forEach((bar, i) => {
    const y = top + i * rowHeight;
    const end = x(bar.value);
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 16}" text-anchor="end">${escapeXml(bar.label)}</text>`,
      `<rect class="bar" x="${labelWidth}" y="${y + 3}" width="${(end - labelWidth).toFixed(1)}" height="${rowHeight - 8}" fill="${colours[bar.series]}"/>`,
      `<text x="${(end + 6).toFixed(1)}" y="${y + 16}">${escapeXml(formatValue(bar.value, chart.unit))}</text>`,
    );
  });
  if (chart.marker && Number.isFinite(chart.marker.value)) {
    const mx = x(chart.marker.value).toFixed(1);
    const bottom = top + chart.bars.length * rowHeight;
    parts.push(
      `<line x1="${mx}" y1="${top - 6}" x2="${mx}" y2="${bottom}" stroke="#c62828" stroke-width="2" stroke-dasharray="5,3"/>`,
      `<text x="${mx}" y="${top - 10}" text-anchor="middle" fill="#c62828" font-size="12">${escapeXml(chart.marker.label)}</text>`,
    );
  }
  const used = [...new Set(chart.bars.map((b) => b.series))];
  let lx = labelWidth;
  const ly = top + chart.bars.length * rowHeight + 18;
  for (const series of used) {
    parts.push(
      `<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${colours[series]}"/>`,
      `<text x="${lx + 16}" y="${ly}">${escapeXml(seriesNames[series])}</text>`,
    );
    lx += 30 + seriesNames[series].length * 7;
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
