/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { unlabelledControls } from '@svc/service-kit/browser-testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildPortal, createTenant, launchChromium, openPage, partnerApi, removeQuietly, runSandboxCaseToApproval, screenshotPath, signIn, startIdentity, type IdentityService, type PartnerApi, type TenantAdmin, type WatchedPage } from './portal-fixture.js';


interface Summary {
  totalCases: number;
  byStatus: Record<string, number>;
  automationRate: number;
}

const EXPORT_HEADER = 'CaseId,Status,DocumentType,ExternalReference,CreatedAt,CompletedAt,CompositeRiskScore,DecisionReason';
/** count-chart.tsx's BAR_COLOUR, #1f6fbf. */
const BAR_RGB: [number, number, number] = [0x1f, 0x6f, 0xbf];

/** Canvas pixels of the bar colour in one chart: proof that uPlot drew bars, not only axes. */
function barPixels(page: Page, testId: string): Promise<number> {
  return page.evaluate(
    ([testId, [red, green, blue]]) => {
      const canvas = document.querySelector<HTMLCanvasElement>(`[data-testid="${testId}"] canvas`);
      const context = canvas?.getContext('2d');
      if (!canvas || !context) return 0;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let matching = 0;
      for (let index = 0; index < data.length; index += 4) {
        const close = Math.abs((data[index] ?? 0) - red) + Math.abs((data[index + 1] ?? 0) - green) + Math.abs((data[index + 2] ?? 0) - blue) < 40;
        if (close && (data[index + 3] ?? 0) > 200) matching += 1;
      }
      return matching;
    },
    [testId, BAR_RGB] as const,
  );
}

/** The by-status table as { status: count }, read from the cells' data-value. */
async function statusTable(page: Page): Promise<Record<string, number>> {
  const rows = page.locator('[data-testid="table-by-status"] tbody tr');
  const table: Record<string, number> = {};
  for (const row of await rows.all()) table[(await row.getAttribute('data-status')) ?? ''] = Number(await row.locator('td').getAttribute('data-value'));
  return table;
}

describeEmbeddedOnly('portal reports screen in Chromium', () => {
  let webRoot = '';
  let service: IdentityService;
  let browser: Browser;
  let tenant: TenantAdmin;
  let partner: PartnerApi;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    webRoot = buildPortal();
    service = await startIdentity(webRoot);
    tenant = await createTenant(service, { sandbox: true });
    [browser, partner] = await Promise.all([launchChromium(), partnerApi(service.baseUrl, tenant)]);
    // Two cases, both Approved today. The second's reference has a comma, quotes and a line
    // break, so the export quotes it: the per-day count parses that CSV in the browser.
    await runSandboxCaseToApproval(partner);
    await runSandboxCaseToApproval(partner, 'Branch 7, "north"\nline two');
  }, 180_000);

  afterAll(async () => {
    for (const watched of opened) await watched.context.close().catch(() => undefined);
    await browser?.close();
    await service?.stop();
    if (service) removeQuietly(service.dataDir);
    removeQuietly(webRoot);
  });

  async function signedIn(options: Parameters<typeof openPage>[1] = { width: 1280 }): Promise<WatchedPage> {
    const watched = await openPage(browser, options);
    opened.push(watched);
    await signIn(watched.page, service.baseUrl, tenant.email, tenant.password);
    return watched;
  }

  it('charts the last 30 days by default: the tables hold the API summary and uPlot drew bars', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/reports`);
    await page.getByTestId('table-by-status').waitFor();
    const from = await page.getByLabel('From', { exact: true }).inputValue();
    const to = await page.getByLabel('To', { exact: true }).inputValue();
    expect((Date.parse(to) - Date.parse(from)) / 86_400_000).toBe(29);

    // The same window the screen asked for, through the API with the partner's token.
    const window = await page.evaluate(([from, to]) => {
      const [fy, fm, fd] = from.split('-').map(Number) as [number, number, number];
      const [ty, tm, td] = to.split('-').map(Number) as [number, number, number];
      return { from: new Date(fy, fm - 1, fd).toISOString(), to: new Date(new Date(ty, tm - 1, td + 1).getTime() - 1).toISOString() };
    }, [from, to] as const);
    const summary = await partner.call<Summary>('GET', `/reports/summary?from=${window.from}&to=${window.to}`);
    expect(summary.totalCases).toBe(2);
    expect(summary.byStatus.Approved).toBe(2);

    expect(await statusTable(page)).toEqual(summary.byStatus);
    expect(await page.getByTestId('report-total').textContent()).toContain(String(summary.totalCases));
    expect(Number(await page.locator('[data-testid="report-automation"] [data-value]').getAttribute('data-value'))).toBe(summary.automationRate);
    expect(Number(await page.locator('#automation-meter').getAttribute('value'))).toBe(summary.automationRate);

    // Today's row of the per-day table holds both cases; every other day none.
    const perDay = page.locator('[data-testid="table-per-day"] tbody tr');
    expect(await perDay.count()).toBe(30);
    const today = await page.evaluate(() => {
      const now = new Date();
      return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
    });
    const values = await perDay.locator('td').evaluateAll((cells) => cells.map((cell) => Number(cell.getAttribute('data-value'))));
    expect(values.reduce((sum, value) => sum + value, 0)).toBe(2);
    expect(await page.locator(`[data-testid="table-per-day"] tr[data-day="${today}"] td`).getAttribute('data-value')).toBe('2');

    for (const chart of ['chart-by-status', 'chart-per-day']) {
      expect(await page.locator(`[data-testid="${chart}"] canvas`).count()).toBe(1);
      await expect.poll(() => barPixels(page, chart)).toBeGreaterThan(100);
    }
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await watched.problems()).toEqual([]);
  });

  it('downloads the CSV export of the chosen range with the cookie alone', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/reports`);
    await page.getByTestId('table-by-status').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^verifications_\d{8}\.csv$/);
    const path = await download.path();
    const lines = readFileSync(path, 'utf8').split('\r\n');
    expect(lines[0]).toBe(EXPORT_HEADER);
    expect(lines.filter((line) => line.includes(',Approved,'))).toHaveLength(2);
    expect(await watched.problems()).toEqual([]);
  });

  it('applies a chosen range from the form and the URL: a range before the cases holds none', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/reports`);
    await page.getByTestId('table-by-status').waitFor();
    await page.getByLabel('From', { exact: true }).fill('2024-01-01');
    await page.getByLabel('To', { exact: true }).fill('2024-01-31');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('?from=2024-01-01&to=2024-01-31');
    await expect.poll(async () => (await statusTable(page)).Approved).toBe(0);
    expect(await page.locator('[data-testid="table-per-day"] tbody tr').count()).toBe(31);
    expect(await page.getByTestId('report-download').getAttribute('href')).toContain('/api/partner/v1/reports/export?from=');

    // A start after the end is refused on the page, before any request.
    await page.getByLabel('From', { exact: true }).fill('2024-02-10');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('Choose a start date on or before the end date.').waitFor();
    expect(new URL(page.url()).search).toBe('?from=2024-01-01&to=2024-01-31');
    expect(await watched.problems()).toEqual([]);
  });

  it('renders in English and in Arabic, right to left (screenshots)', async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/reports`);
    await page.getByTestId('table-by-status').waitFor();
    await expect.poll(() => barPixels(page, 'chart-per-day')).toBeGreaterThan(100);
    await page.screenshot({ path: screenshotPath('portal-reports-en'), fullPage: true });

    await page.getByRole('button', { name: 'العربية' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.getByRole('heading', { name: 'الطلبات حسب الحالة' }).waitFor();
    await expect.poll(() => page.locator('[data-testid="table-by-status"] tr[data-status="Approved"] th').textContent()).toBe('مقبولة');
    await expect.poll(() => barPixels(page, 'chart-by-status')).toBeGreaterThan(100);
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('portal-reports-ar'), fullPage: true });
    expect(await watched.problems()).toEqual([]);
  });
});
