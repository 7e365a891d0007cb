// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.37;

/*
 * The dev EVM domain's USDC: a minimal ERC-20 of ours with USDC's 6 decimals. The deployer (the dev Gateway)
 * mints; any holder burns its own tokens, which is how the GatewayWallet burns what a mint elsewhere spent.
 */
contract DevUsdc {
    string public constant name = "USD Coin (dev)";
    string public constant symbol = "USDC";
    uint8 public constant decimals = 6;

    address public immutable minter;
    uint256 public totalSupply;
    mapping(address owner => uint256 value) public balanceOf;
    mapping(address owner => mapping(address spender => uint256 value)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error NotMinter(address caller);
    error InsufficientBalance(address owner, uint256 balance, uint256 needed);
    error InsufficientAllowance(address owner, address spender, uint256 allowance, uint256 needed);
    error ZeroAddress();

    constructor(address minter_) {
        minter = minter_;
    }

    function mint(address to, uint256 value) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        if (to == address(0)) revert ZeroAddress();
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function burn(uint256 value) external {
        _debit(msg.sender, value);
        totalSupply -= value;
        emit Transfer(msg.sender, address(0), value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert InsufficientAllowance(from, msg.sender, allowed, value);
            allowance[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) private {
        if (to == address(0)) revert ZeroAddress();
        _debit(from, value);
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }

    function _debit(address owner, uint256 value) private {
        uint256 balance = balanceOf[owner];
        if (balance < value) revert InsufficientBalance(owner, balance, value);
        balanceOf[owner] = balance - value;
    }
}
