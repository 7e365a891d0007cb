// The initiated trade's first phase, making the maker lock: the maker assesses whether it can serve, buys
// any part of the output its quote sourced through an aggregator, then signs its lock and sends it until
// final. It leaves for redeeming once the lock is final, or for unwinding when no lock can land.
// trade.machine.ts places it in the statechart.
import { and, not, or } from 'xstate';
import { effectOutput, signatureOfOutput } from './trade.context.ts';
import { effectState, tradeSetup } from './trade.setup.ts';

export const locking = tradeSetup.createStateConfig({
  description:
    'Making the maker lock: assess, buy any part of the output the quote sourced, sign the lock and send it until confirmed.',
  initial: 'assessing',
  states: {
    assessing: effectState('assessing', {
      description:
        'Can the maker serve: inventory, a maker expiry leaving the minimum redeem window, and a price that has not moved against it beyond tolerance since the quote.',
      src: 'checkInventory',
      input: ({ context }) => ({
        tradeId: context.tradeId,
        quoteId: context.quoteId,
        outputMint: context.outputMint,
        outputAmountRaw: context.outputAmountRaw,
        sourcing: context.sourcing,
      }),
      onDone: {
        target: 'deciding',
        actions: { type: 'recordAssessment', params: effectOutput },
      },
    }),
    deciding: {
      always: [
        {
          guard: and([
            'hasFinalMatchingTakerLock',
            'takerEscrowHoldsFunds',
            'hasNoMakerLockIntent',
            'inventoryAvailable',
            // A trade whose quote sourced part of its output buys it first even when the balance would
            // cover it now: it holds only the part its inventory gave, the rest is other quotes' holds.
            not('needsSourcing'),
            not('needsMinting'),
            'leavesMinRedeemWindow',
            'priceHolds',
          ]),
          target: 'signingMakerLock',
          actions: 'planMakerLock',
        },
        // Just in time through Circle Gateway: the maker's Solana USDC falls short of the output (or of what
        // its sourcing swap sells); it mints the rest from its unified balance first (the taker's lock is
        // final, the price holds, there is time to lock after), before any swap and before the lock.
        {
          guard: and([
            'hasFinalMatchingTakerLock',
            'takerEscrowHoldsFunds',
            'hasNoMakerLockIntent',
            'needsMinting',
            'leavesMinRedeemWindow',
            'priceHolds',
          ]),
          target: 'signingMint',
        },
        // Just in time: the quote sourced part of the output through an aggregator; the maker buys it
        // now (the taker's lock is final, the price holds, there is time to lock after), then locks.
        {
          guard: and([
            'hasFinalMatchingTakerLock',
            'takerEscrowHoldsFunds',
            'hasNoMakerLockIntent',
            'needsSourcing',
            'leavesMinRedeemWindow',
            'priceHolds',
          ]),
          target: 'signingSourcing',
        },
        // The maker's last look: the market moved against it since the quote, or its prices are not
        // usable now. It declines before anything of its own moves, and releases the taker at once.
        {
          guard: and(['noMakerLockCanLand', 'priceMoved']),
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: { type: 'recordFailure', params: { reason: 'price_moved' } },
        },
        {
          guard: and(['noMakerLockCanLand', not('priceHolds')]),
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: { type: 'recordFailure', params: { reason: 'price_unavailable' } },
        },
        {
          guard: and(['noMakerLockCanLand', or(['inventoryAvailable', 'needsSourcing', 'needsMinting'])]),
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: { type: 'recordFailure', params: { reason: 'redeem_window_too_short' } },
        },
        {
          guard: 'noMakerLockCanLand',
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: { type: 'recordFailure', params: { reason: 'inventory_unavailable' } },
        },
        // Unreachable from assessing (no intent exists yet); a live intent is never re-signed.
        { target: 'sendingMakerLock' },
      ],
    },
    signingMint: effectState('signingMint', {
      description:
        'Sign a burn intent for the USDC the maker lacks on Solana (nothing leaves the process); the result becomes the persisted mint intent.',
      src: 'signMint',
      input: ({ context }) => {
        const valueRaw = context.assessment?.mintRaw;
        if (valueRaw === undefined || valueRaw === null) throw new Error('signingMint without a shortfall');
        return { tradeId: context.tradeId, valueRaw };
      },
      onDone: [
        {
          guard: { type: 'mintSigned', params: effectOutput },
          target: 'attestingMint',
          actions: { type: 'recordMintIntent', params: effectOutput },
        },
        {
          // No intent within the bounds (no Gateway, fee above the cap): nothing moved, release the taker.
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: { type: 'recordFailure', params: { reason: 'gateway_failed' } },
        },
      ],
    }),
    attestingMint: effectState('attestingMint', {
      description:
        'Ask Gateway for the intent’s attestation (once), check it, and sign the gatewayMint built from it (nothing is sent); both become part of the persisted intent.',
      src: 'attestMint',
      input: ({ context }) => {
        if (context.mintIntent === null) throw new Error('attestingMint without a mint intent');
        return { tradeId: context.tradeId, intent: context.mintIntent };
      },
      onDone: [
        {
          guard: { type: 'mintAttested', params: effectOutput },
          target: 'sendingMint',
          actions: { type: 'recordMintAttestation', params: effectOutput },
        },
        {
          // Gateway down or refusing, an attestation not the one asked for, a fee above the cap: nothing
          // was minted, and the spec can never be minted by anyone but the maker — release the taker.
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: { type: 'recordFailure', params: { reason: 'gateway_failed' } },
        },
      ],
    }),
    sendingMint: effectState('sendingMint', {
      description:
        'Send the signed gatewayMint until final (booked as gateway_mint), or until proved lapsed; then assess again and lock.',
      src: 'sendMint',
      input: ({ context }) => {
        if (context.mintIntent?.transaction == null) throw new Error('sendingMint without a signed mint');
        return { tradeId: context.tradeId, intent: context.mintIntent };
      },
      onDone: [
        {
          guard: { type: 'mintLanded', params: effectOutput },
          target: 'assessing',
          actions: { type: 'recordMinted', params: effectOutput },
        },
        {
          guard: { type: 'mintMaySignAgain', params: effectOutput },
          target: 'attestingMint',
          actions: 'markMintLapsed',
        },
        {
          // Refused on chain, the attestation or the burn window passed, or lapsed too late to lock after.
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: ['markMintLapsed', { type: 'recordFailure', params: { reason: 'gateway_failed' } }],
        },
      ],
    }),
    signingSourcing: effectState('signingSourcing', {
      description:
        'Quote and sign the swap that buys the sourced part of the output (nothing is sent); the result becomes the persisted intent.',
      src: 'signSourcing',
      input: ({ context }) => {
        if (context.sourcing === null) throw new Error('signingSourcing without a sourcing plan');
        const failedSwaps = context.signatures
          .filter((s) => s.kind === 'aggregator_swap' && s.outcome === 'failed')
          .map((s) => s.signature);
        return { tradeId: context.tradeId, ...context.sourcing, failedSwaps };
      },
      onDone: [
        {
          guard: { type: 'sourcingSigned', params: effectOutput },
          target: 'sendingSourcing',
          actions: { type: 'recordSourcingIntent', params: effectOutput },
        },
        {
          // No swap within the plan (route gone, slippage beyond the limit, venue down): nothing of
          // the maker's moved, and no maker lock was signed — release the taker at once.
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: { type: 'recordFailure', params: { reason: 'sourcing_failed' } },
        },
      ],
    }),
    sendingSourcing: effectState('sendingSourcing', {
      description:
        'Send the intent’s sourcing swap until final, or until proved lapsed; then assess again and lock.',
      src: 'sendSourcing',
      input: ({ context }) => {
        if (context.sourcing === null || context.sourcingIntent === null)
          throw new Error('sendingSourcing without a plan and an intent');
        return { tradeId: context.tradeId, plan: context.sourcing, intent: context.sourcingIntent };
      },
      onDone: [
        {
          guard: { type: 'sourcingLanded', params: effectOutput },
          target: 'assessing',
          actions: { type: 'recordSourced', params: effectOutput },
        },
        {
          guard: { type: 'sourcingMaySignAgain', params: effectOutput },
          target: 'signingSourcing',
          actions: 'markSourcingLapsed',
        },
        {
          // Failed on chain for its minimum out, the first time: quoted once more within the window.
          guard: { type: 'sourcingMayRequote', params: effectOutput },
          target: 'signingSourcing',
          actions: ['markSourcingLapsed', { type: 'recordFailedSourcing', params: effectOutput }],
        },
        {
          // Refused on chain again (or for another reason), or lapsed too late to lock after: release.
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: [
            'markSourcingLapsed',
            { type: 'recordFailedSourcing', params: effectOutput },
            { type: 'recordFailure', params: { reason: 'sourcing_failed' } },
          ],
        },
      ],
    }),
    signingMakerLock: effectState('signingMakerLock', {
      description: 'Sign the maker lock (nothing is sent); the result becomes the persisted intent.',
      src: 'signMakerLock',
      input: ({ context }) => ({
        tradeId: context.tradeId,
        takerEscrow: context.takerEscrow,
        makerEscrow: context.makerEscrow,
        initializer: context.makerWallet,
        recipient: context.takerWallet,
        mint: context.outputMint,
        amountRaw: context.outputAmountRaw,
        hashlock: context.secretHash,
        expiry: context.makerExpiry ?? 0,
        takerMint: context.inputMint,
        takerAmountRaw: context.inputAmountRaw,
        takerExpiry: context.takerExpiry,
      }),
      onDone: {
        guard: 'hasNoLiveMakerLockIntent',
        target: 'sendingMakerLock',
        actions: { type: 'recordMakerLockIntent', params: effectOutput },
      },
    }),
    sendingMakerLock: effectState('sendingMakerLock', {
      description:
        'Send the intent’s maker lock until confirmed, or until proved lapsed; an expired one is signed afresh while it can still land in time.',
      src: 'makerLock',
      input: ({ context }) => {
        if (context.makerLockIntent === null) throw new Error('sendingMakerLock without an intent');
        return {
          tradeId: context.tradeId,
          makerEscrow: context.makerEscrow,
          intent: context.makerLockIntent,
        };
      },
      onDone: [
        {
          guard: { type: 'makerLockLanded', params: effectOutput },
          target: '#trade.initiated.redeeming.makerLocked',
          actions: { type: 'recordMakerLock', params: signatureOfOutput },
        },
        {
          // Its blockhash passed unseen (a congested cluster): the escrow's address is unique to the
          // trade, so a lock signed afresh can only land in the lapsed one's place.
          guard: { type: 'makerLockMaySignAgain', params: effectOutput },
          target: 'signingMakerLock',
          actions: 'markMakerLockLapsed',
        },
        {
          target: '#trade.initiated.unwinding.releasingTaker',
          actions: [
            'markMakerLockLapsed',
            { type: 'recordFailure', params: { reason: 'maker_lock_lapsed' } },
          ],
        },
      ],
    }),
  },
});
