import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './plots.css';

/**
 * One time plot drawn by uPlot on a canvas: x is time (milliseconds in, seconds for uPlot), each series a line (or
 * points, or bars). Colours come from the theme's tokens and follow a theme switch; the width follows the container.
 * For readers who cannot see the canvas, the figure has a caption and the same numbers as a table under a <details>.
 */
export interface PlotSeries {
  label: string;
  values: (number | null)[];
  /** Second y axis (right) for this series. */
  right?: boolean;
  style?: 'line' | 'points' | 'bars';
  /** How a value reads in the legend and the table. */
  format?: (v: number) => string;
}

export interface TimePlotProps {
  title: string;
  /** Milliseconds, ascending. */
  x: number[];
  series: PlotSeries[];
  height?: number;
  yLabel?: string;
  yRightLabel?: string;
  /** Fixed y range of the left axis, e.g. [0, 1] for fractions. */
  yRange?: [number, number];
  /** Labels for integer y values (a timeline's lanes). */
  yTicks?: string[];
  testId?: string;
  /** Spans the whole row of a plots grid. */
  wide?: boolean;
}

const PALETTE_VARS = ['--accent', '--ok', '--danger', '--warn-text', '--text-muted'];

function tokens() {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    text: v('--text', '#1b1f24'), muted: v('--text-muted', '#4f5863'), grid: v('--border', '#d5dae1'),
    palette: PALETTE_VARS.map((p, i) => v(p, ['#0b5cad', '#1d6b34', '#b3261e', '#6b4c00', '#4f5863'][i]!)),
  };
}

const fmtNumber = (v: number) => (Math.abs(v) >= 1000 ? v.toLocaleString('en') : String(Math.round(v * 1000) / 1000));
const fmtTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

export function TimePlot(props: TimePlotProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [theme, setTheme] = useState(document.documentElement.dataset.theme ?? '');

  // Redraw with the other colours when the theme changes.
  useEffect(() => {
    const mo = new MutationObserver(() => setTheme(document.documentElement.dataset.theme ?? ''));
    mo.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => mo.disconnect();
  }, []);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const t = tokens();
    const { series, yTicks } = props;
    const axis = (side: 0 | 1, label?: string): uPlot.Axis => ({
      side: side === 0 ? 3 : 1, scale: side === 0 ? 'y' : 'y2', label, stroke: t.muted,
      grid: { show: side === 0, stroke: t.grid, width: 1 }, ticks: { stroke: t.grid, width: 1 },
      size: 60,
      ...(side === 0 && yTicks ? {
        values: (_u: uPlot, splits: number[]) => splits.map((s) => (Number.isInteger(s) ? yTicks[s] ?? '' : '')),
        splits: () => yTicks.map((_, i) => i), size: 90,
      } : {}),
    });
    const hasRight = series.some((s) => s.right);
    const opts: uPlot.Options = {
      width: Math.max(240, el.clientWidth),
      height: props.height ?? 220,
      // Times in UTC, as the tables under the plots give them.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: {
        // Bars get half a step of room at both ends, so that the first and last are not cut in two.
        x: { time: true, ...(series.some((s) => s.style === 'bars') && props.x.length > 1 ? {
          range: (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => {
            const pad = (max - min) / (props.x.length - 1) / 2;
            return [min - pad, max + pad];
          },
        } : {}) },
        y: props.yRange ? { range: props.yRange } : yTicks ? { range: [-0.5, yTicks.length - 0.5] } : { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.08 : 1] },
        y2: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.08 : 1] },
      },
      axes: [
        { stroke: t.muted, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid, width: 1 } },
        axis(0, props.yLabel),
        ...(hasRight ? [axis(1, props.yRightLabel)] : []),
      ],
      legend: { show: true, live: true },
      cursor: { drag: { x: true, y: false } },
      series: [
        { label: 'Time', value: (_u, v) => (v == null ? '–' : fmtTime(v * 1000)) },
        ...series.map((s, i): uPlot.Series => {
          const colour = t.palette[i % t.palette.length]!;
          const style = s.style ?? 'line';
          return {
            label: s.label, scale: s.right ? 'y2' : 'y', stroke: colour, width: style === 'points' ? 0 : 2,
            fill: style === 'bars' ? colour : undefined, spanGaps: style === 'line',
            points: { show: style !== 'line' || props.x.length < 40, size: style === 'points' ? 9 : 5, stroke: colour, fill: colour },
            paths: style === 'points' ? () => null : style === 'bars' ? uPlot.paths.bars!({ size: [0.6, 40] }) : undefined,
            value: (_u, v) => (v == null ? '–' : yTicks && !s.format ? yTicks[v] ?? String(v) : (s.format ?? fmtNumber)(v)),
          };
        }),
      ],
    };
    const data: uPlot.AlignedData = [props.x.map((ms) => ms / 1000), ...series.map((s) => s.values)];
    const u = new uPlot(opts, data, el);
    plot.current = u;
    u.root.setAttribute('aria-hidden', 'true');
    const ro = new ResizeObserver(() => {
      const w = Math.max(240, el.clientWidth);
      if (w !== u.width) u.setSize({ width: w, height: u.height });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [props.x, props.series, props.height, props.yRange, props.yTicks, props.yLabel, props.yRightLabel, theme]);

  return (
    <figure className={props.wide ? 'plot plots-wide' : 'plot'} data-testid={props.testId} data-points={props.x.length}>
      <figcaption>{props.title}</figcaption>
      {props.x.length === 0 ? <p className="muted small">No data.</p> : <div ref={box} className="plot-canvas" />}
      {props.x.length > 0 && (
        <details className="plot-data">
          <summary>Data ({props.x.length} points)</summary>
          <div className="plot-table" tabIndex={0} role="region" aria-label={`${props.title}: data`}>
            <table>
              <thead>
                <tr><th scope="col">Time (UTC)</th>{props.series.map((s) => <th scope="col" key={s.label}>{s.label}</th>)}</tr>
              </thead>
              <tbody>
                {props.x.map((ms, i) => (
                  <tr key={`${ms}-${i}`}>
                    <td>{fmtTime(ms)}</td>
                    {props.series.map((s) => {
                      const v = s.values[i];
                      return <td key={s.label}>{v == null ? '–' : props.yTicks && !s.format ? props.yTicks[v] ?? v : (s.format ?? fmtNumber)(v)}</td>;
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </figure>
  );
}
