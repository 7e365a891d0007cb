// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.37;

/*
 * GatewayWallet of the dev Gateway's EVM source domain: our own contract (not Circle's code), written to the
 * formats Circle Gateway publishes so that burn intents signed for it are signed exactly as for Circle's
 * GatewayWallet contracts: EIP-712 typed data `BurnIntent` under the domain {name: "GatewayWallet",
 * version: "1"}, and a transfer spec hash that is keccak256 of the TransferSpec's published byte encoding.
 *
 * Depositors deposit USDC and hold an available balance here. The Gateway's operator (the one burn signer)
 * later burns what a mint on another domain spent: each burn carries the burn intent its depositor signed and
 * the fee the operator charges; the value is burnt and the fee paid to the fee recipient, both out of the
 * depositor's balance. A transfer spec burns at most once.
 *
 * What Circle's contract has and this one leaves out, on purpose for a dev domain: delegates (the source
 * signer must be the depositor), the trustless withdrawal with its delay, permit and ERC-3009 deposits,
 * pausing, denylists, upgrades and burn-signer rotation.
 */

interface IUsdc {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
    function transfer(address to, uint256 value) external returns (bool);
    function burn(uint256 value) external;
}

contract GatewayWallet {
    /// Circle's TransferSpec, field for field and in the published order (EIP-712 and byte encoding alike).
    struct TransferSpec {
        uint32 version;
        uint32 sourceDomain;
        uint32 destinationDomain;
        bytes32 sourceContract;
        bytes32 destinationContract;
        bytes32 sourceToken;
        bytes32 destinationToken;
        bytes32 sourceDepositor;
        bytes32 destinationRecipient;
        bytes32 sourceSigner;
        bytes32 destinationCaller;
        uint256 value;
        bytes32 salt;
        bytes hookData;
    }

    struct BurnIntent {
        uint256 maxBlockHeight;
        uint256 maxFee;
        TransferSpec spec;
    }

    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version)");
    bytes32 private constant TRANSFER_SPEC_TYPEHASH = keccak256(
        "TransferSpec(uint32 version,uint32 sourceDomain,uint32 destinationDomain,bytes32 sourceContract,"
        "bytes32 destinationContract,bytes32 sourceToken,bytes32 destinationToken,bytes32 sourceDepositor,"
        "bytes32 destinationRecipient,bytes32 sourceSigner,bytes32 destinationCaller,uint256 value,bytes32 salt,"
        "bytes hookData)"
    );
    bytes32 private constant BURN_INTENT_TYPEHASH = keccak256(
        "BurnIntent(uint256 maxBlockHeight,uint256 maxFee,TransferSpec spec)"
        "TransferSpec(uint32 version,uint32 sourceDomain,uint32 destinationDomain,bytes32 sourceContract,"
        "bytes32 destinationContract,bytes32 sourceToken,bytes32 destinationToken,bytes32 sourceDepositor,"
        "bytes32 destinationRecipient,bytes32 sourceSigner,bytes32 destinationCaller,uint256 value,bytes32 salt,"
        "bytes hookData)"
    );
    /// bytes4(keccak256("circle.gateway.TransferSpec")), the first field of the byte encoding.
    uint32 private constant TRANSFER_SPEC_MAGIC = 0xca85def7;
    uint32 public constant TRANSFER_SPEC_VERSION = 1;
    /// secp256k1's group order halved: a larger s is the malleable twin of a valid signature.
    uint256 private constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    /// The EIP-712 domain separator of every burn intent: name and version only, as Circle publishes it. The
    /// chain and contract are inside the intent (sourceDomain, sourceContract), checked on every burn.
    bytes32 public immutable domainSeparator;
    /// The one token deposits are taken in (the domain's USDC).
    address public immutable token;
    /// This chain's Gateway domain id (sourceDomain of the transfer specs burnt here).
    uint32 public immutable domain;
    /// The operator: the only address that may call gatewayBurn.
    address public immutable burnSigner;
    /// Where the fees the operator charges go.
    address public immutable feeRecipient;

    mapping(address token => mapping(address depositor => uint256 value)) private balances;
    mapping(bytes32 transferSpecHash => bool used) public usedTransferSpecHash;

    event Deposited(address indexed token, address indexed depositor, address indexed sender, uint256 value);
    event GatewayBurned(
        address indexed token,
        address indexed depositor,
        bytes32 indexed transferSpecHash,
        uint32 destinationDomain,
        bytes32 destinationRecipient,
        address signer,
        uint256 value,
        uint256 fee
    );

    error UnsupportedToken(address token);
    error ZeroValue();
    error TokenTransferFailed();
    error NotBurnSigner(address caller);
    error LengthMismatch();
    error UnsupportedVersion(uint32 version);
    error WrongSourceDomain(uint32 sourceDomain);
    error WrongSourceContract(bytes32 sourceContract);
    error WrongSourceToken(bytes32 sourceToken);
    error NotAnAddress(bytes32 value);
    error SignerNotDepositor(address signer, address depositor);
    error BurnIntentExpired(uint256 maxBlockHeight, uint256 blockNumber);
    error FeeAboveMaxFee(uint256 fee, uint256 maxFee);
    error InvalidSignature(address expected, address recovered);
    error TransferSpecHashUsed(bytes32 transferSpecHash);
    error InsufficientBalance(address depositor, uint256 available, uint256 needed);

    constructor(address token_, uint32 domain_, address burnSigner_, address feeRecipient_) {
        token = token_;
        domain = domain_;
        burnSigner = burnSigner_;
        feeRecipient = feeRecipient_;
        domainSeparator = keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("GatewayWallet"), keccak256("1")));
    }

    /// Deposits value of the sender's tokens into the sender's own balance (after an ERC-20 approve).
    function deposit(address token_, uint256 value) external {
        _deposit(token_, msg.sender, value);
    }

    /// Deposits value of the sender's tokens into depositor's balance.
    function depositFor(address token_, address depositor, uint256 value) external {
        _deposit(token_, depositor, value);
    }

    /// What depositor may still have burnt: its deposits less what burns took.
    function availableBalance(address token_, address depositor) external view returns (uint256) {
        return balances[token_][depositor];
    }

    /**
     * Burns what the Gateway attested for: for each intent, its spec's value plus fees[i] out of its depositor's
     * balance, against signatures[i], the depositor's EIP-712 signature of the intent. All or nothing.
     */
    function gatewayBurn(BurnIntent[] calldata intents, bytes[] calldata signatures, uint256[] calldata fees)
        external
    {
        if (msg.sender != burnSigner) revert NotBurnSigner(msg.sender);
        if (signatures.length != intents.length || fees.length != intents.length) revert LengthMismatch();
        for (uint256 i = 0; i < intents.length; i++) {
            _burn(intents[i], signatures[i], fees[i]);
        }
    }

    /// The EIP-712 digest a depositor signs for intent (what viem's hashTypedData computes off chain).
    function burnIntentDigest(BurnIntent calldata intent) public view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", domainSeparator, _hashBurnIntent(intent)));
    }

    /// keccak256 of the TransferSpec's published byte encoding: the id Gateway's replay protection keys on.
    function transferSpecHash(TransferSpec calldata spec) public pure returns (bytes32) {
        // Two halves, concatenated: one encodePacked of every field runs out of stack slots.
        return keccak256(
            bytes.concat(
                abi.encodePacked(
                    TRANSFER_SPEC_MAGIC,
                    spec.version,
                    spec.sourceDomain,
                    spec.destinationDomain,
                    spec.sourceContract,
                    spec.destinationContract,
                    spec.sourceToken,
                    spec.destinationToken
                ),
                abi.encodePacked(
                    spec.sourceDepositor,
                    spec.destinationRecipient,
                    spec.sourceSigner,
                    spec.destinationCaller,
                    spec.value,
                    spec.salt,
                    uint32(spec.hookData.length),
                    spec.hookData
                )
            )
        );
    }

    function _deposit(address token_, address depositor, uint256 value) private {
        if (token_ != token) revert UnsupportedToken(token_);
        if (value == 0) revert ZeroValue();
        if (!IUsdc(token_).transferFrom(msg.sender, address(this), value)) revert TokenTransferFailed();
        balances[token_][depositor] += value;
        emit Deposited(token_, depositor, msg.sender, value);
    }

    function _burn(BurnIntent calldata intent, bytes calldata signature, uint256 fee) private {
        TransferSpec calldata spec = intent.spec;
        if (spec.version != TRANSFER_SPEC_VERSION) revert UnsupportedVersion(spec.version);
        if (spec.sourceDomain != domain) revert WrongSourceDomain(spec.sourceDomain);
        if (spec.sourceContract != _word(address(this))) revert WrongSourceContract(spec.sourceContract);
        if (spec.sourceToken != _word(token)) revert WrongSourceToken(spec.sourceToken);
        address depositor = _address(spec.sourceDepositor);
        address signer = _address(spec.sourceSigner);
        if (signer != depositor) revert SignerNotDepositor(signer, depositor);
        if (block.number > intent.maxBlockHeight) revert BurnIntentExpired(intent.maxBlockHeight, block.number);
        if (fee > intent.maxFee) revert FeeAboveMaxFee(fee, intent.maxFee);
        address recovered = _recover(burnIntentDigest(intent), signature);
        if (recovered == address(0) || recovered != signer) revert InvalidSignature(signer, recovered);

        bytes32 specHash = transferSpecHash(spec);
        if (usedTransferSpecHash[specHash]) revert TransferSpecHashUsed(specHash);
        uint256 available = balances[token][depositor];
        uint256 needed = spec.value + fee;
        if (needed > available) revert InsufficientBalance(depositor, available, needed);

        usedTransferSpecHash[specHash] = true;
        balances[token][depositor] = available - needed;
        IUsdc(token).burn(spec.value);
        if (fee > 0 && !IUsdc(token).transfer(feeRecipient, fee)) revert TokenTransferFailed();
        emit GatewayBurned(
            token, depositor, specHash, spec.destinationDomain, spec.destinationRecipient, signer, spec.value, fee
        );
    }

    function _hashBurnIntent(BurnIntent calldata intent) private pure returns (bytes32) {
        return keccak256(
            abi.encode(BURN_INTENT_TYPEHASH, intent.maxBlockHeight, intent.maxFee, _hashTransferSpec(intent.spec))
        );
    }

    /// EIP-712 hashStruct(TransferSpec): every field one 32-byte word, hookData by its keccak256.
    function _hashTransferSpec(TransferSpec calldata spec) private pure returns (bytes32) {
        return keccak256(
            bytes.concat(
                abi.encode(
                    TRANSFER_SPEC_TYPEHASH,
                    spec.version,
                    spec.sourceDomain,
                    spec.destinationDomain,
                    spec.sourceContract,
                    spec.destinationContract,
                    spec.sourceToken,
                    spec.destinationToken
                ),
                abi.encode(
                    spec.sourceDepositor,
                    spec.destinationRecipient,
                    spec.sourceSigner,
                    spec.destinationCaller,
                    spec.value,
                    spec.salt,
                    keccak256(spec.hookData)
                )
            )
        );
    }

    /// The signer of digest, or the zero address for anything but a canonical 65-byte r || s || v signature.
    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }

    /// An address as Gateway's 32-byte field holds it: left-padded with zeros.
    function _word(address account) private pure returns (bytes32) {
        return bytes32(uint256(uint160(account)));
    }

    /// A 32-byte field that must hold an EVM address (its first 12 bytes zero).
    function _address(bytes32 value) private pure returns (address) {
        if (uint256(value) >> 160 != 0) revert NotAnAddress(value);
        return address(uint160(uint256(value)));
    }
}
