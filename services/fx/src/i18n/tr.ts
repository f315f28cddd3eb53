/** Turkish. */
export const disclaimer = 'Kurlar yalnızca bilgi amaçlıdır ve gerçek işlem fiyatlarından farklı olabilir; alım veya satım teklifi değildir.';
