/** English. */
export const disclaimer = 'Rates are shown for information only and may differ from actual trading prices; they are not an offer to buy or sell.';
